"""Inverse kinematics benchmark: hrdf_ros (the compiled path and the numpy path) against
TRAC-IK (pytracik, its Speed mode) and hebi-py's IK, on the same targets in one run.

TRAC-IK's protocol: per robot, ``--targets`` (10 000) targets, hebi-py's EndEffector
frame (index 0) at configurations uniform in [-pi, pi] (numpy's default_rng(1)); every
solver starts from the zero seed with its defaults (ours: 5 ms, 1e-5 m and rad, the
objective by the degrees of freedom that move the end effector: 6+ full pose, 5 tip
axis, 4- position; TRAC-IK: Speed, 5 ms, 1e-5; hebi-py: one call with the matching
objectives). A solution counts when hebi-py's FK of the returned positions is within
2e-5 m of the target and, by the objective, 2e-5 rad of its orientation (the angle of
R_t^T R) or of its z axis (TRAC-IK's 1e-5 is per twist component). The solvers run
interleaved target by target, in an order that turns each target, so that all see the
same machine load; each call is timed with the wall clock (as the timeouts are), its
Python call included. TRAC-IK runs on hrdf_ros's URDF of the same file
(``gripper_joints=False``, HEBI's masses), only for chains of 6 or more revolute joints
(it takes neither tip axes nor unbounded prismatic joints).

Robots: every kit in ../shared/hrdf/kits, the bundled arm, the benchmark's rail arm
(benchmarks/data/rail_arm_7dof.hrdf: a prismatic joint, which no HEBI file has), and
every file in ../shared/hrdf/real that hebi-py loads and that has an end effector. Each
robot runs in a child process (hebi-py 2.16.1 crashes on some trees: the robot is then
run again without hebi-py, and the table says so).

First, the time to fail: a target 10 m from the bundled arm's base (out of reach), solved
``--unreachable`` (200) times per path with the defaults (5 ms), median and worst, the
call included (it ends at the timeout: tests count its steps instead). Then, per robot,
batch throughput (solves per second, the compiled path on 1 and 2 threads, the
numpy path), the targets with PASS/FAIL, and the documentation's table as markdown
(doc/explanation/benchmarks.md). Run with ``make bench`` (installs pytracik) or
``python benchmarks/ik_benchmark.py [--targets N] [--files ...]``.
"""
from __future__ import annotations

import argparse
import glob
import json
import math
import os
import sys
import tempfile
import time

for _var in ('OPENBLAS_NUM_THREADS', 'OMP_NUM_THREADS', 'MKL_NUM_THREADS'):
    os.environ.setdefault(_var, '1')

import numpy as np  # noqa: E402

from hrdf_ros import HrdfError, Kinematics, load, to_urdf  # noqa: E402
from hrdf_ros.description.frame_tree import build_frame_tree  # noqa: E402
from hrdf_ros.kinematics.ik import default_orientation  # noqa: E402
from hrdf_ros.kinematics.rotations import rotation_to_quaternion  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
SHARED = os.path.normpath(os.path.join(REPO, '..', 'shared', 'hrdf'))
SUCCESS = 2e-5
#: Targets: our success at least this on every robot; on 6+ revolute DoF at least
#: TRAC-IK's count, and on the compiled path mean and p95 times at most TRAC-IK's.
MIN_SUCCESS = 0.999


def robots(names=None):
    """(label, path) of every robot of the module docstring (or of ``names``)."""
    found = [(os.path.splitext(os.path.basename(p))[0], p)
             for p in sorted(glob.glob(os.path.join(SHARED, 'kits', '*.hrdf')))]
    found.append(('bundled arm (x_series_arm_6dof)',
                  os.path.join(REPO, 'config', 'x_series_arm_6dof.hrdf')))
    found.append(('rail arm (benchmarks/data)', os.path.join(HERE, 'data',
                                                             'rail_arm_7dof.hrdf')))
    real = os.path.join(SHARED, 'real')
    for folder, _, files in sorted(os.walk(real)):
        for name in sorted(files):
            if name.endswith('.hrdf'):
                path = os.path.join(folder, name)
                found.append(('real: ' + os.path.relpath(path, real), path))
    if names:
        found = [(label, path) for label, path in found
                 if any(n in label or n in path for n in names)]
    return found


def rotation_angle(a, b):
    return 2.0 * math.asin(min(np.linalg.norm(a - b) / (2.0 * math.sqrt(2.0)), 1.0))


def axis_angle(a, b):
    return 2.0 * math.asin(min(np.linalg.norm(a - b) / 2.0, 1.0))


class Peers:
    """TRAC-IK and hebi-py for one robot (either may be missing)."""

    def __init__(self, model, path, chain, objective, use_hebi):
        self.hebi = self.tracik = None
        self.chain, self.dof = chain, model.dof_count
        if use_hebi:
            import hebi
            self.hebi = hebi.robot_model.import_from_hrdf(path)
            self.objectives = self._hebi_objectives(objective)
        revolute = all(model.elements[model.dof_elements[k]].motion[0] == 'r' for k in chain)
        if len(chain) >= 6 and revolute:
            import pytracik
            tree = build_frame_tree(model, gripper_joints=False)
            urdf = to_urdf(model, tree=tree, exact_masses=True, geometry=False)
            tip = tree.end_effector_links[0]
            self.pytracik = pytracik
            self.tracik = pytracik.TRAC_IK('base_link', tip, urdf, 0.005, 1e-5,
                                           pytracik.SolveType.Speed)
            assert pytracik.get_num_joints(self.tracik) == len(chain)
            self.ratios = np.array([model.elements[model.dof_elements[k]].gear_ratio
                                    for k in chain])
            self.zero = np.zeros(len(chain))

    def _hebi_objectives(self, objective):
        from hebi.robot_model import (endeffector_position_objective,
                                      endeffector_so3_objective,
                                      endeffector_tipaxis_objective)

        def make(target):
            found = [endeffector_position_objective(target[:3, 3])]
            if objective == 'full':
                found.append(endeffector_so3_objective(target[:3, :3]))
            elif objective == 'tip_axis':
                found.append(endeffector_tipaxis_objective(target[:3, 2]))
            return found
        return make

    def end_effector(self, q):
        return np.asarray(self.hebi.get_forward_kinematics_mat('EndEffector', q))[0] \
            .reshape(4, 4)

    def hebi_solve(self, target, objectives):
        """hebi-py's answer, or None where it raises (its 'Unknown solver failure')."""
        try:
            return np.asarray(self.hebi.solve_inverse_kinematics(np.zeros(self.dof),
                                                                 *objectives))
        except Exception:  # noqa: BLE001 - hebi.HEBI_Exception and kin: no answer
            return None

    def tracik_solve(self, target, quaternion):
        x, y, z, w = quaternion
        p = target[:3, 3]
        result = self.pytracik.ik(self.tracik, self.zero, p[0], p[1], p[2], x, y, z, w)
        if result[0] < 0:
            return None
        q = np.zeros(self.dof)
        q[self.chain] = np.asarray(result[1:]) * self.ratios
        return q


def unreachable(calls: int) -> None:
    """Print how long ``solve_ik`` takes to fail on a target out of reach (module
    docstring), on both paths."""
    arm = load(os.path.join(REPO, 'config', 'x_series_arm_6dof.hrdf'))
    target = np.eye(4)
    target[:3, 3] = (10.0, 0.0, 0.0)
    for name in ('numba', 'numpy'):
        kinematics = Kinematics(arm, name)
        kinematics.solve_ik(kinematics.end_effector(np.zeros(6)))        # kernels loaded
        times, iterations = np.empty(calls), np.empty(calls)
        for k in range(calls):
            start = time.perf_counter()
            result = kinematics.solve_ik(target)
            times[k] = time.perf_counter() - start
            iterations[k] = result.iterations
            assert not result.success
        print(f'unreachable target (10 m), {name} path, {calls} calls: failed after '
              f'{np.median(times) * 1e3:.2f} ms median, {times.max() * 1e3:.2f} ms worst '
              f'(timeout 5 ms; {np.median(iterations):.0f} steps median)', flush=True)


def run_robot(label, path, count, use_hebi):
    """The interleaved run of one robot (in a child process): a JSON-able dict. The
    batch throughput first, while the process has only hrdf_ros loaded."""
    model = load(path)
    compiled, numpy_path = Kinematics(model, 'numba'), Kinematics(model, 'numpy')
    chain = compiled.end_effector_joints(0)
    objective = default_orientation(len(chain))
    q = np.random.default_rng(1).uniform(-np.pi, np.pi, (count, model.dof_count))
    batch = throughput(compiled, numpy_path, numpy_path.end_effector(q))  # before peers
    peers = Peers(model, path, chain, objective, use_hebi)
    # targets and checks by hebi-py's FK; ours (equal to 1e-9) where hebi-py crashed
    fk = peers.end_effector if peers.hebi is not None else numpy_path.end_effector
    targets = np.stack([fk(x) for x in q])
    quaternions = rotation_to_quaternion(targets[:, :3, :3])
    compiled.solve_ik(targets[0])                          # kernels loaded
    solvers = {'ours (compiled)': lambda k: compiled.solve_ik(targets[k]).positions,
               'ours (numpy)': lambda k: numpy_path.solve_ik(targets[k]).positions}
    if peers.tracik is not None:
        solvers['TRAC-IK'] = lambda k: peers.tracik_solve(targets[k], quaternions[k])
    if peers.hebi is not None:
        objectives = [peers.objectives(t) for t in targets]
        solvers['hebi-py'] = lambda k: peers.hebi_solve(targets[k], objectives[k])
    names = list(solvers)
    times = {n: np.empty(count) for n in names}
    solutions = {n: [None] * count for n in names}
    clock = time.perf_counter
    for k in range(count):
        shift = k % len(names)
        for name in names[shift:] + names[:shift]:
            start = clock()
            solutions[name][k] = solvers[name](k)
            times[name][k] = clock() - start
    result = {'label': label, 'dof': model.dof_count, 'chain': len(chain),
              'objective': objective, 'targets': count, 'hebi': peers.hebi is not None,
              'solvers': {}}
    check = fk
    for name in names:
        ok = 0
        for k, x in enumerate(solutions[name]):
            if x is None or not np.all(np.isfinite(x)):
                continue
            reached, target = check(x), targets[k]
            good = np.linalg.norm(reached[:3, 3] - target[:3, 3]) <= SUCCESS
            if objective == 'full':
                good = good and rotation_angle(reached[:3, :3], target[:3, :3]) <= SUCCESS
            elif objective == 'tip_axis':
                good = good and axis_angle(reached[:3, 2], target[:3, 2]) <= SUCCESS
            ok += bool(good)
        t = times[name] * 1e6
        result['solvers'][name] = {'success': ok, 'mean_us': float(t.mean()),
                                   'p50_us': float(np.percentile(t, 50)),
                                   'p95_us': float(np.percentile(t, 95)),
                                   'max_us': float(t.max())}
    result['throughput'] = batch
    return result


def throughput(compiled, numpy_path, targets):
    """Solves per second of one batch call: compiled on 1 and 2 threads, numpy."""
    compiled.solve_ik(targets[:4], threads=2)          # the parallel kernel loaded
    out = {}
    for name, call in (('compiled, 1 thread', lambda t: compiled.solve_ik(t)),
                       ('compiled, 2 threads', lambda t: compiled.solve_ik(t, threads=2)),
                       ('numpy', lambda t: numpy_path.solve_ik(t))):
        part = targets if name != 'numpy' else targets[:1000]
        start = time.perf_counter()
        call(part)
        out[name] = len(part) / (time.perf_counter() - start)
    return out


def hebi_loads(path) -> bool:
    """Whether hebi-py loads the file with an end effector (in a child: it crashes on
    some files)."""
    pid = os.fork()
    if pid == 0:
        code = 1
        try:
            import hebi
            robot = hebi.robot_model.import_from_hrdf(path)
            code = 0 if robot.get_frame_count('EndEffector') else 3
        except BaseException:  # noqa: BLE001 - any refusal
            code = 2
        finally:
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    return os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0


def in_child(label, path, count, use_hebi):
    """run_robot in a forked child; None when it crashed."""
    out = tempfile.mktemp(suffix='.json')
    pid = os.fork()
    if pid == 0:
        code = 1
        try:
            result = run_robot(label, path, count, use_hebi)
            with open(out, 'w', encoding='utf-8') as handle:
                json.dump(result, handle)
            code = 0
        except BaseException as exc:  # noqa: BLE001
            print(f'{label}: {type(exc).__name__}: {exc}', file=sys.stderr)
        finally:
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    if not (os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0):
        return None
    with open(out, encoding='utf-8') as handle:
        result = json.load(handle)
    os.unlink(out)
    return result


def fmt(solver, count):
    if solver is None:
        return '—'
    return (f"{100.0 * solver['success'] / count:.2f} % · {solver['mean_us']:.0f} / "
            f"{solver['p95_us']:.0f}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--targets', type=int, default=10_000)
    parser.add_argument('--files', nargs='*', help='robots whose label or path contains one')
    parser.add_argument('--unreachable', type=int, default=200,
                        help='calls on a target out of reach, per path (0: none)')
    args = parser.parse_args()
    print(f'load average before: {os.getloadavg()}')
    began = time.perf_counter()
    # the compiled kernels into the on-disk cache before the children fork (one thread:
    # after numba's OpenMP threads have run, a fork is refused)
    warm = Kinematics(load(os.path.join(REPO, 'config', 'x_series_arm_6dof.hrdf')), 'numba')
    warm.solve_ik(warm.end_effector(np.zeros(6)))
    if args.unreachable:
        unreachable(args.unreachable)
    results, skipped = [], []
    for label, path in robots(args.files):
        try:
            model = load(path)
        except HrdfError:
            skipped.append(f'{label}: not a valid robot (hebi-py refuses it too)')
            continue
        if not model.frame_count('end_effector'):
            skipped.append(f'{label}: no end effector')
            continue
        hebi = hebi_loads(path)
        if label.startswith('real: ') and not hebi:
            skipped.append(f'{label}: hebi-py does not load it')
            continue
        result = in_child(label, path, args.targets, hebi)
        if result is None and hebi:
            result = in_child(label, path, args.targets, False)
            if result is not None:
                result['note'] = 'hebi-py crashed on its IK; checked with our FK'
        if result is None:
            skipped.append(f'{label}: the run failed')
            continue
        results.append(result)
        report(result)
    print(f'load average after: {os.getloadavg()}; {time.perf_counter() - began:.0f} s')
    for line in skipped:
        print(f'skipped {line}')
    verdicts(results)
    print()
    print(markdown(results))


def report(result):
    n = result['targets']
    print(f"\n{result['label']}: {result['dof']} DoF, chain {result['chain']}, "
          f"{result['objective']}, {n} targets" + (f" ({result['note']})"
                                                    if 'note' in result else ''))
    for name, s in result['solvers'].items():
        print(f"  {name:16s} success {s['success']:6d} ({100 * s['success'] / n:6.2f} %)  "
              f"mean {s['mean_us']:8.1f} us  p50 {s['p50_us']:8.1f}  p95 {s['p95_us']:8.1f}  "
              f"max {s['max_us']:8.1f}")
    print('  batch: ' + ', '.join(f'{k} {v:,.0f} solves/s'
                                  for k, v in result['throughput'].items()))


def verdicts(results):
    print('\nTargets')
    for r in results:
        n, s = r['targets'], r['solvers']
        checks = [(f'success >= {100 * MIN_SUCCESS:.1f} % ({name})',
                   s[name]['success'] >= MIN_SUCCESS * n)
                  for name in ('ours (compiled)', 'ours (numpy)')]
        if 'TRAC-IK' in s:
            ours, theirs = s['ours (compiled)'], s['TRAC-IK']
            checks += [('success >= TRAC-IK', ours['success'] >= theirs['success']),
                       ('mean <= TRAC-IK', ours['mean_us'] <= theirs['mean_us']),
                       ('p95 <= TRAC-IK', ours['p95_us'] <= theirs['p95_us'])]
        for what, ok in checks:
            print(f"  {'PASS' if ok else 'FAIL'} {r['label']}: {what}")


def markdown(results):
    lines = ['| robot | chain DoF, objective | ours, compiled | ours, numpy | TRAC-IK | '
             'hebi-py | batch (compiled 1 / 2 threads, numpy), solves/s |',
             '|---|---|---|---|---|---|---|']
    for r in results:
        n, s, t = r['targets'], r['solvers'], r['throughput']
        hebi = fmt(s.get('hebi-py'), n) if r['hebi'] else 'crashed'
        lines.append(
            f"| {r['label']} | {r['chain']}, {r['objective']} | "
            f"{fmt(s['ours (compiled)'], n)} | {fmt(s['ours (numpy)'], n)} | "
            f"{fmt(s.get('TRAC-IK'), n)} | {hebi} | "
            f"{t['compiled, 1 thread']:,.0f} / {t['compiled, 2 threads']:,.0f} / "
            f"{t['numpy']:,.0f} |")
    return '\n'.join(lines) + ('\n\nCells: success % · mean / p95 time per call, µs '
                               '(wall clock, the Python call included).')


if __name__ == '__main__':
    main()
