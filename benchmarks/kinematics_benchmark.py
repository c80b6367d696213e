"""Kinematics benchmark: hrdf_ros vs hebi-py (HEBI's C library) vs Pinocchio.

Run with ``make bench`` (installs Pinocchio into .venv first). All three libraries get
the same random configurations; Pinocchio loads the URDF that hrdf_ros generates.
hebi-py and Pinocchio have no batch API, so their batches are Python loops over single
calls; their per-configuration cost is constant, so loops are timed on at most
``--loop-limit`` configurations and reported per configuration.

Printed per kit and case: time per call (batch) and per configuration for each library,
and the ratios hebi-py / hrdf_ros and Pinocchio / hrdf_ros (> 1: hrdf_ros is faster).
Also: the largest difference of each library from hebi-py (the agreement check), HRDF
load time, and memory (tracemalloc peak of one hrdf_ros batch at the largest N).

Times are the best of ``--repeat`` runs (single calls: best of repeats of 2000 calls),
on one thread (BLAS threads are limited to one before numpy is imported).
"""
from __future__ import annotations

import argparse
import os
import sys
import time
import timeit
import tracemalloc

for _var in ('OPENBLAS_NUM_THREADS', 'OMP_NUM_THREADS', 'MKL_NUM_THREADS'):
    os.environ.setdefault(_var, '1')

import numpy as np  # noqa: E402

from hrdf_ros import Kinematics, load, to_urdf  # noqa: E402
from hrdf_ros.export.frame_tree import build_frame_tree  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
KITS_DIR = os.path.normpath(os.path.join(HERE, '..', '..', 'shared', 'hrdf', 'kits'))
DEFAULT_KITS = ['A-2085-06', 'A-2099-07', 'X-Series-Double-Shoulder-7DOF',
                'R-Series-Double-Shoulder-7DOF']
BATCHES = (1, 100, 10_000, 100_000)


def best_of(fn, repeat: int) -> float:
    """Best wall time of ``repeat`` calls of fn(), s."""
    best = float('inf')
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best


def per_call(fn, number: int = 2000, repeat: int = 5) -> float:
    """Best time of one call of fn(), s."""
    return min(timeit.repeat(fn, number=number, repeat=repeat)) / number


class Pinocchio:
    """Pinocchio on hrdf_ros's URDF; continuous joints take (cos q, sin q)."""

    def __init__(self, urdf: str, model, tree):
        import pinocchio as pin
        self.pin = pin
        self.model = pin.buildModelFromXML(urdf)
        self.data = self.model.createData()
        self.frame = self.model.getFrameId(tree.end_effector_links[0])
        self.output_frames = [self.model.getFrameId(name) for name in self._output_links(tree)]
        # joint k of hrdf_ros -> (q index, continuous?) in Pinocchio's configuration
        self.slots = []
        for name in tree.dof_names:
            joint = self.model.joints[self.model.getJointId(name)]
            self.slots.append((joint.idx_q, joint.nq == 2))

    @staticmethod
    def _output_links(tree):
        return [j.child for j in tree.joints if j.element >= 0]

    def configuration(self, q: np.ndarray) -> np.ndarray:
        out = np.zeros(self.model.nq)
        for value, (index, continuous) in zip(q, self.slots):
            if continuous:
                out[index], out[index + 1] = np.cos(value), np.sin(value)
            else:
                out[index] = value
        return out

    def end_effector(self, qp):
        self.pin.framesForwardKinematics(self.model, self.data, qp)
        return self.data.oMf[self.frame].homogeneous

    def outputs(self, qp):
        self.pin.framesForwardKinematics(self.model, self.data, qp)
        return [self.data.oMf[f].homogeneous for f in self.output_frames]

    def end_effector_jacobian(self, qp):
        return self.pin.computeFrameJacobian(self.model, self.data, qp, self.frame,
                                             self.pin.LOCAL_WORLD_ALIGNED)

    def all_jacobians(self, qp):
        self.pin.computeJointJacobians(self.model, self.data, qp)
        self.pin.updateFramePlacements(self.model, self.data)
        return [self.pin.getFrameJacobian(self.model, self.data, f,
                                          self.pin.LOCAL_WORLD_ALIGNED)
                for f in self.output_frames]


def run_kit(path: str, args) -> list:
    from hebi.robot_model import import_from_hrdf

    name = os.path.splitext(os.path.basename(path))[0]
    model = load(path)
    kin = Kinematics(model)
    hebi = import_from_hrdf(path)
    tree = build_frame_tree(model)
    urdf = to_urdf(model, name, tree=tree)
    pin = None
    if not args.no_pinocchio:
        try:
            pin = Pinocchio(urdf, model, tree)
        except ImportError:
            print('  (pinocchio not installed: pip install pin; skipped)')
    dof = model.dof_count
    rng = np.random.default_rng(args.seed)
    q_all = rng.uniform(-np.pi, np.pi, (max(args.batches), dof))
    qp_all = None
    if pin is not None:
        qp_all = [pin.configuration(x) for x in q_all[:args.loop_limit]]

    print(f'\n== {name}: {dof} DoF, {model.frame_count("output")} output frames ==')
    # Agreement with hebi-py on the configurations used below (first 200).
    check = q_all[:200]
    ee_h = np.stack([hebi.get_end_effector(x) for x in check])
    jac_h = np.stack([hebi.get_jacobian_end_effector(x) for x in check])
    out_h = np.stack([hebi.get_forward_kinematics_mat('output', x) for x in check])
    agree = {
        'hrdf_ros': max(np.abs(kin.end_effector(check) - ee_h).max(),
                        np.abs(kin.end_effector_jacobian(check) - jac_h).max(),
                        np.abs(kin.frames('output', check) - out_h).max()),
    }
    if pin is not None:
        agree['pinocchio'] = max(
            max(np.abs(pin.end_effector(qp_all[i]) - ee_h[i]).max() for i in range(200)),
            max(np.abs(pin.end_effector_jacobian(qp_all[i]) - jac_h[i]).max()
                for i in range(200)))
    print('  max |difference from hebi-py| (EE pose, EE Jacobian, output frames): '
          + ', '.join(f'{k} {v:.1e}' for k, v in agree.items()))

    cases = {
        'end-effector FK': (
            kin.end_effector, lambda x: hebi.get_end_effector(x),
            pin and pin.end_effector),
        'all output frames': (
            lambda q: kin.frames('output', q),
            lambda x: hebi.get_forward_kinematics_mat('output', x), pin and pin.outputs),
        'end-effector Jacobian': (
            kin.end_effector_jacobian, lambda x: hebi.get_jacobian_end_effector(x),
            pin and pin.end_effector_jacobian),
        'all Jacobians (output)': (
            lambda q: kin.jacobians('output', q),
            lambda x: hebi.get_jacobians_mat('output', x), pin and pin.all_jacobians),
    }
    rows = []
    header = (f'  {"case":<24}{"N":>8} {"hrdf_ros us/call":>17} {"us/config":>10} '
              f'{"hebi us/config":>15} {"pin us/config":>14} {"hebi/ours":>10} '
              f'{"pin/ours":>9}')
    print(header)
    for case, (ours, hebi_one, pin_one) in cases.items():
        # loop-based libraries: constant per-configuration cost, timed once per case
        loop = q_all[:args.loop_limit]
        hebi_cfg = best_of(lambda: [hebi_one(x) for x in loop], args.repeat) / len(loop)
        pin_cfg = None
        if pin_one:
            pin_cfg = best_of(lambda: [pin_one(x) for x in qp_all], args.repeat) / len(qp_all)
        for n in args.batches:
            if n == 1:
                x = q_all[0]
                ours_call = per_call(lambda: ours(x))
                hebi_n = per_call(lambda: hebi_one(x))
                pin_n = per_call(lambda: pin_one(qp_all[0])) if pin_one else None
            else:
                batch = q_all[:n]
                ours_call = best_of(lambda: ours(batch), args.repeat)
                hebi_n, pin_n = hebi_cfg, pin_cfg
            ours_cfg = ours_call / n
            row = dict(kit=name, case=case, n=n, ours_call_us=ours_call * 1e6,
                       ours_us=ours_cfg * 1e6, hebi_us=hebi_n * 1e6,
                       pin_us=None if pin_n is None else pin_n * 1e6)
            rows.append(row)
            pin_text = f'{row["pin_us"]:14.3f}' if pin_n is not None else f'{"-":>14}'
            pin_ratio = f'{pin_n / ours_cfg:9.1f}' if pin_n is not None else f'{"-":>9}'
            print(f'  {case:<24}{n:>8} {row["ours_call_us"]:17.2f} {row["ours_us"]:10.3f} '
                  f'{row["hebi_us"]:15.3f} {pin_text} {hebi_n / ours_cfg:10.1f} '
                  f'{pin_ratio}')

    # HRDF load time
    ours_load = per_call(lambda: Kinematics(load(path)), number=50)
    hebi_load = per_call(lambda: import_from_hrdf(path), number=50)
    text = f'  HRDF load: hrdf_ros {ours_load * 1e3:.3f} ms (parse + kinematics), ' \
           f'hebi-py {hebi_load * 1e3:.3f} ms'
    if pin is not None:
        import pinocchio
        pin_load = per_call(lambda: pinocchio.buildModelFromXML(urdf), number=50)
        text += f', Pinocchio from URDF {pin_load * 1e3:.3f} ms'
    print(text)

    # Memory: peak of one hrdf_ros batch at the largest N (tracemalloc sees numpy).
    n = max(args.batches)
    for label, fn in (('end-effector FK', kin.end_effector),
                      ('end-effector Jacobian', kin.end_effector_jacobian)):
        tracemalloc.start()
        result = fn(q_all[:n])
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        print(f'  memory, {label} N={n}: peak {peak / 2**20:.1f} MiB '
              f'(result itself {result.nbytes / 2**20:.1f} MiB)')
    return rows


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--kits', nargs='+', default=DEFAULT_KITS,
                        help='kit names in ../shared/hrdf/kits or HRDF paths')
    parser.add_argument('--batches', nargs='+', type=int, default=list(BATCHES))
    parser.add_argument('--loop-limit', type=int, default=20_000,
                        help='configurations timed for loop-based libraries')
    parser.add_argument('--repeat', type=int, default=3)
    parser.add_argument('--seed', type=int, default=1)
    parser.add_argument('--no-pinocchio', action='store_true')
    args = parser.parse_args(argv)
    import hebi  # noqa: F401  (fail early with a clear message if missing)
    import numpy
    print(f'numpy {numpy.__version__}, hebi-py {getattr(hebi, "__version__", "?")}, '
          f'python {sys.version.split()[0]}, BLAS threads '
          f'{os.environ.get("OPENBLAS_NUM_THREADS")}')
    rows = []
    for kit in args.kits:
        path = kit if os.path.exists(kit) else os.path.join(KITS_DIR, kit + '.hrdf')
        rows += run_kit(path, args)
    big = max(args.batches)
    print(f'\nSummary at N = {big} (hebi-py per-configuration time / hrdf_ros):')
    for row in rows:
        if row['n'] == big:
            print(f'  {row["kit"]:<32}{row["case"]:<24} {row["hebi_us"] / row["ours_us"]:7.1f}x')
    print('\nSingle configuration (hrdf_ros per call / hebi-py per call; <= 2 is the goal):')
    for row in rows:
        if row['n'] == 1:
            print(f'  {row["kit"]:<32}{row["case"]:<24} {row["ours_us"] / row["hebi_us"]:7.2f}')
    return 0


if __name__ == '__main__':
    sys.exit(main())
