"""Kinematics benchmark: hrdf_ros vs hebi-py (HEBI's C library), Pinocchio and
pytorch_kinematics.

Run with ``make bench`` (installs Pinocchio, torch (CPU) and pytorch-kinematics into
.venv first). All libraries get the same random configurations; Pinocchio and
pytorch_kinematics load the URDF that hrdf_ros generates. hebi-py and Pinocchio have no
batch API, so their batches are Python loops over single calls; pytorch_kinematics is
batched (float64, CPU, one thread). The per-configuration cost of the peers is constant
at large N, so they are timed on at most ``--loop-limit`` configurations and reported per
configuration. pytorch_kinematics has no every-frame Jacobian: its "all Jacobians" is one
SerialChain Jacobian per output frame, its "all output frames" its all-frame FK tensor.

Printed per kit and case: time per call (batch) and per configuration for each library,
the ratios peer / hrdf_ros (> 1: hrdf_ros is faster), and the *floor*: the time to
allocate and fill an array of the result's size, per configuration (no library can return
its result faster). Also: the largest difference of each library from hebi-py (the
agreement check), HRDF load time, memory (tracemalloc peak of one hrdf_ros batch at the
largest N), and finally the issue's targets with pass/fail, from ratios of this run.

Times are the best of ``--repeat`` runs (single calls: best of 7 runs of 2000 calls,
the libraries timed in turn), on one thread (BLAS and torch threads are limited to one before they are imported).
"""
from __future__ import annotations

import argparse
import os
import sys
import time
import timeit
import tracemalloc

for _var in ('OPENBLAS_NUM_THREADS', 'OMP_NUM_THREADS', 'MKL_NUM_THREADS'):  # torch too
    os.environ.setdefault(_var, '1')

import numpy as np  # noqa: E402

from hrdf_ros import Kinematics, load, to_urdf  # noqa: E402
from hrdf_ros.export.frame_tree import build_frame_tree  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
KITS_DIR = os.path.normpath(os.path.join(HERE, '..', '..', 'shared', 'hrdf', 'kits'))
# Not the 18-DoF hexapod: hebi-py 2.16.1's end-effector Jacobian crashes (SIGSEGV) on a
# robot with several end effectors.
DEFAULT_KITS = ['A-2085-06', 'A-2099-07', 'X-Series-Double-Shoulder-7DOF',
                'R-Series-Double-Shoulder-7DOF']
BATCHES = (1, 100, 10_000, 100_000)
CASES = ('end-effector FK', 'all output frames', 'end-effector Jacobian',
         'all Jacobians (output)')
#: The issue's targets: (case, peer) -> minimum peer / hrdf_ros ratio per configuration
#: at the largest batch; single configuration: hrdf_ros / hebi-py at most SINGLE_MAX.
BATCH_TARGETS = {('all output frames', 'hebi'): 20.0, ('all output frames', 'pin'): 2.0,
                 ('all Jacobians (output)', 'hebi'): 10.0,
                 ('all Jacobians (output)', 'pin'): 2.0}
BATCH_TARGETS.update({(case, 'pk'): 1.0 for case in CASES})
SINGLE_MAX = 1.5


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


def paired_per_call(fns: dict, numbers: dict, repeat: int = 7) -> dict:
    """Best time of one call of each fn(), s, timed in turn (a, b, c, a, b, c, ...) so
    that a slow spell of a shared machine falls on all of them."""
    best = {k: float('inf') for k in fns}
    for _ in range(repeat):
        for key, fn in fns.items():
            best[key] = min(best[key], timeit.timeit(fn, number=numbers[key]) / numbers[key])
    return best


class PyTorchKinematics:
    """pytorch_kinematics (CPU, float64, one thread) on hrdf_ros's URDF.

    Its URDF reader converts joint origins through float32 (``_convert_transform``), so
    it agrees with the others to ~1e-7 m, not 1e-9."""

    def __init__(self, urdf: str, tree):
        import torch
        import pytorch_kinematics as pk
        torch.set_num_threads(1)
        self.torch = torch
        data = urdf.encode()
        self.chain = pk.build_chain_from_urdf(data).to(dtype=torch.float64)
        if self.chain.get_joint_parameter_names() != list(tree.dof_names):
            raise RuntimeError('pytorch_kinematics joint order differs from hrdf_ros')
        self.ee = pk.build_serial_chain_from_urdf(data, tree.end_effector_links[0]).to(
            dtype=torch.float64)
        self.ee_columns = [tree.dof_names.index(n)
                           for n in self.ee.get_joint_parameter_names()]
        self.output_chains = []
        for link in Pinocchio._output_links(tree):
            chain = pk.build_serial_chain_from_urdf(data, link).to(dtype=torch.float64)
            columns = [tree.dof_names.index(n) for n in chain.get_joint_parameter_names()]
            self.output_chains.append((chain, columns))

    def tensor(self, q: np.ndarray):
        return self.torch.from_numpy(np.atleast_2d(q))

    def end_effector(self, th):
        with self.torch.no_grad():
            return self.ee.forward_kinematics(th[:, self.ee_columns]).get_matrix()

    def outputs(self, th):
        with self.torch.no_grad():
            return self.chain.forward_kinematics_tensor(th)

    def end_effector_jacobian(self, th):
        with self.torch.no_grad():
            return self.ee.jacobian(th[:, self.ee_columns])

    def all_jacobians(self, th):
        with self.torch.no_grad():
            return [chain.jacobian(th[:, columns]) for chain, columns in self.output_chains]


class Pinocchio:
    """Pinocchio on hrdf_ros's URDF; continuous joints take (cos q, sin q)."""

    def __init__(self, urdf: str, model, tree):
        import pinocchio as pin
        self.pin = pin
        self.model = pin.buildModelFromXML(urdf)
        self.data = self.model.createData()
        self.frame = self.model.getFrameId(tree.end_effector_links[0], pin.BODY)
        self.output_frames = [self.model.getFrameId(name, pin.BODY)
                              for name in self._output_links(tree)]
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
    pin = pk = None
    if not args.no_pinocchio:
        try:
            pin = Pinocchio(urdf, model, tree)
        except ImportError:
            print('  (pinocchio not installed: pip install pin; skipped)')
    if not args.no_pytorch_kinematics:
        try:
            pk = PyTorchKinematics(urdf, tree)
        except ImportError:
            print('  (pytorch_kinematics not installed: see benchmarks/requirements.txt; '
                  'skipped)')
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
    if pk is not None:
        th = pk.tensor(check)
        agree['pytorch_kinematics'] = max(
            np.abs(pk.end_effector(th).numpy() - ee_h).max(),
            np.abs(pk.end_effector_jacobian(th).numpy() - jac_h).max())
    print('  max |difference from hebi-py| (EE pose, EE Jacobian; hrdf_ros also output '
          'frames): ' + ', '.join(f'{k} {v:.1e}' for k, v in agree.items()))

    n_out = model.frame_count('output')
    cases = {
        'end-effector FK': (
            kin.end_effector, lambda x: hebi.get_end_effector(x),
            pin and pin.end_effector, pk and pk.end_effector, (4, 4)),
        'all output frames': (
            lambda q: kin.frames('output', q),
            lambda x: hebi.get_forward_kinematics_mat('output', x), pin and pin.outputs,
            pk and pk.outputs, (n_out, 4, 4)),
        'end-effector Jacobian': (
            kin.end_effector_jacobian, lambda x: hebi.get_jacobian_end_effector(x),
            pin and pin.end_effector_jacobian, pk and pk.end_effector_jacobian, (6, dof)),
        'all Jacobians (output)': (
            lambda q: kin.jacobians('output', q),
            lambda x: hebi.get_jacobians_mat('output', x), pin and pin.all_jacobians,
            pk and pk.all_jacobians, (n_out, 6, dof)),
    }
    rows = []
    header = (f'  {"case":<24}{"N":>8} {"hrdf_ros us/call":>17} {"us/config":>10} '
              f'{"floor":>7} {"hebi":>9} {"pin":>9} {"pk":>9} {"hebi/ours":>10} '
              f'{"pin/ours":>9} {"pk/ours":>8}')
    print(header + '\n  (us per configuration; floor: allocating and filling the result)')
    loop = q_all[:args.loop_limit]
    th_loop = pk.tensor(loop) if pk is not None else None
    for case, (ours, hebi_one, pin_one, pk_batch, shape) in cases.items():
        # peers: constant per-configuration cost at large N, timed once per case
        peer = {'hebi': best_of(lambda: [hebi_one(x) for x in loop], args.repeat) / len(loop)}
        if pin_one:
            peer['pin'] = best_of(lambda: [pin_one(x) for x in qp_all], args.repeat) / len(qp_all)
        if pk_batch:
            peer['pk'] = best_of(lambda: pk_batch(th_loop), args.repeat) / len(loop)
        for n in args.batches:
            if n == 1:
                x = q_all[0]
                fns = {'ours': lambda: ours(x), 'hebi': lambda: hebi_one(x)}
                numbers = {'ours': 2000, 'hebi': 2000, 'pin': 2000, 'pk': 100}
                if pin_one:
                    fns['pin'] = lambda: pin_one(qp_all[0])
                if pk_batch:
                    th0 = pk.tensor(x)
                    fns['pk'] = lambda: pk_batch(th0)
                times = paired_per_call(fns, numbers)
                ours_call = times.pop('ours')
            else:
                batch = q_all[:n]
                ours_call = best_of(lambda: ours(batch), args.repeat)
                times = peer
            floor = best_of(lambda: np.empty((n,) + shape).fill(1.0), args.repeat) / n
            ours_cfg = ours_call / n
            row = dict(kit=name, case=case, n=n, ours_call_us=ours_call * 1e6,
                       ours_us=ours_cfg * 1e6, floor_us=floor * 1e6,
                       **{f'{k}_us': v * 1e6 for k, v in times.items()})
            rows.append(row)

            def cell(key, ratio=False, width=9):
                if f'{key}_us' not in row:
                    return f'{"-":>{width}}'
                value = row[f'{key}_us']
                return f'{value / row["ours_us"]:{width}.1f}' if ratio else f'{value:{width}.3f}'
            print(f'  {case:<24}{n:>8} {row["ours_call_us"]:17.2f} {row["ours_us"]:10.3f} '
                  f'{row["floor_us"]:7.3f} {cell("hebi")} {cell("pin")} {cell("pk")} '
                  f'{cell("hebi", True, 10)} {cell("pin", True)} {cell("pk", True, 8)}')

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


def machine() -> str:
    """CPU model and core count (Linux), for the record."""
    model = '?'
    try:
        with open('/proc/cpuinfo') as handle:
            model = next(line.split(':', 1)[1].strip() for line in handle
                         if line.startswith('model name'))
    except (OSError, StopIteration):
        pass
    return f'{model}, {os.cpu_count()} cores'


def peer_versions():
    """(name, version) of the optional peers that are installed."""
    from importlib.metadata import PackageNotFoundError, version
    for name, dist in (('Pinocchio', 'pin'), ('torch', 'torch'),
                       ('pytorch_kinematics', 'pytorch-kinematics')):
        try:
            yield name, version(dist)
        except PackageNotFoundError:
            yield name, 'not installed'


def report(rows: list, big: int) -> None:
    """The summary tables and the issue's targets with pass/fail (ratios of this run)."""
    print(f'\nSummary at N = {big}: peer time per configuration / hrdf_ros\'s '
          '(best possible: peer / floor)')
    for row in rows:
        if row['n'] == big:
            ratios = '  '.join(f'{peer} {row[peer + "_us"] / row["ours_us"]:6.1f}x'
                               for peer in ('hebi', 'pin', 'pk') if peer + '_us' in row)
            print(f'  {row["kit"]:<32}{row["case"]:<24} {ratios}   (hebi / floor '
                  f'{row["hebi_us"] / row["floor_us"]:.0f}x)')
    print('\nSingle configuration: hrdf_ros per call / hebi-py per call '
          f'(target <= {SINGLE_MAX}):')
    for row in rows:
        if row['n'] == 1:
            print(f'  {row["kit"]:<32}{row["case"]:<24} {row["ours_us"] / row["hebi_us"]:7.2f}'
                  f'   ({row["ours_us"]:.1f} us vs {row["hebi_us"]:.1f} us)')
    print('\nTargets (PASS/FAIL per kit):')
    for row in rows:
        checks = []
        if row['n'] == big:
            for (case, peer), minimum in BATCH_TARGETS.items():
                if case == row['case'] and peer + '_us' in row:
                    ratio = row[peer + '_us'] / row['ours_us']
                    checks.append((f'N={big} {case} >= {minimum:g}x {peer}', ratio,
                                   ratio >= minimum))
        if row['n'] == 1:
            ratio = row['ours_us'] / row['hebi_us']
            checks.append((f'single {row["case"]} <= {SINGLE_MAX}x hebi time', ratio,
                           ratio <= SINGLE_MAX))
        for label, ratio, ok in checks:
            print(f'  {"PASS" if ok else "FAIL"}  {row["kit"]:<32}{label:<48} {ratio:6.2f}x')


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--kits', nargs='+', default=DEFAULT_KITS,
                        help='kit names in ../shared/hrdf/kits or HRDF paths')
    parser.add_argument('--batches', nargs='+', type=int, default=list(BATCHES))
    parser.add_argument('--loop-limit', type=int, default=20_000,
                        help='configurations timed for loop-based libraries')
    parser.add_argument('--repeat', type=int, default=5)
    parser.add_argument('--seed', type=int, default=1)
    parser.add_argument('--no-pinocchio', action='store_true')
    parser.add_argument('--no-pytorch-kinematics', action='store_true')
    args = parser.parse_args(argv)
    import hebi  # noqa: F401  (fail early with a clear message if missing)
    import numpy
    print(f'{machine()}; python {sys.version.split()[0]}, numpy {numpy.__version__}, '
          f'hebi-py {getattr(hebi, "__version__", "?")}, ' + ', '.join(
              f'{name} {version}' for name, version in peer_versions())
          + f'; BLAS threads {os.environ.get("OPENBLAS_NUM_THREADS")}')
    rows = []
    for kit in args.kits:
        path = kit if os.path.exists(kit) else os.path.join(KITS_DIR, kit + '.hrdf')
        rows += run_kit(path, args)
    report(rows, max(args.batches))
    return 0


if __name__ == '__main__':
    sys.exit(main())
