"""Kinematics benchmark: hrdf_ros (the compiled numba path and the numpy path) vs hebi-py
(HEBI's C library), Pinocchio and pytorch_kinematics, and vs the machine's limit.

Run with ``make bench`` (installs Pinocchio, torch (CPU) and pytorch-kinematics into
.venv first). All libraries get the same random configurations; Pinocchio and
pytorch_kinematics load the URDF that hrdf_ros generates (benchmarks/peers.py). hebi-py
and Pinocchio have no batch API, so their batches are Python loops over single calls;
pytorch_kinematics is batched (float64, CPU, one thread). Their per-configuration cost
is constant at large N, so they are timed on ``--loop-limit`` configurations.

Per kit and case, at each batch size N: hrdf_ros per configuration on its default path
(``ours``: numba when ``hrdf_ros[fast]`` is installed, ``make bench`` installs it),
allocating its result, and filling a caller's array (``out=``); the numpy path
(``numpy``); next to the *limit*: allocating and filling the result plus numpy's sin and
cos of the positions (``limit``, what any implementation pays at least), and refilling an
existing array (``refill``, what ``out=`` pays at least). At the largest N the peers too,
and ours on every core (``threads``, reported apart: the targets are one thread). Everything at one N is timed in
rounds, interleaved (limit, ours, numpy, refill, out=, hebi-py, Pinocchio, pytorch_kinematics,
then the same in reverse), best of ``--rounds``, so that a busy spell of a shared machine
falls on all of them; single calls are timed in turn likewise. Times are the thread's CPU time by
default (``--clock cpu``: time the process is descheduled is not counted, page faults
are), or wall time (``--clock wall``). The load average is printed before and after.

Then the start-up cost of the numba path (the first call in a new process: cold, with
an empty kernel cache, and warm), the targets with PASS/FAIL from ratios of this run,
and the documentation's table as markdown (doc/explanation/benchmarks.md: paste it
there).
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
from hrdf_ros.description.frame_tree import build_frame_tree  # noqa: E402

from peers import Pinocchio, PyTorchKinematics  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
KITS_DIR = os.path.normpath(os.path.join(HERE, '..', '..', 'shared', 'hrdf', 'kits'))
# The four 7-DoF kits. Not the 18-DoF hexapod: hebi-py 2.16.1's end-effector Jacobian
# crashes (SIGSEGV) on a robot with several end effectors.
DEFAULT_KITS = ['A-2099-07', 'A-2099-07G', 'X-Series-Double-Shoulder-7DOF',
                'R-Series-Double-Shoulder-7DOF']
BATCHES = (1, 100, 10_000, 100_000)
CASES = ('end-effector FK', 'all output frames', 'end-effector Jacobian',
         'all Jacobians (output)')
EVERY_FRAME = ('all output frames', 'all Jacobians (output)')
#: Targets at the largest N, one thread: (case, ratio) -> (bound, 'min' or 'max'). Ratio
#: ``limit``: ours / limit (alloc + fill + numpy's sin and cos of the positions). The
#: peers' ratios (peer / ours) are printed, not targets.
BATCH_TARGETS = {('all output frames', 'limit'): (1.5, 'max'),
                 ('all Jacobians (output)', 'limit'): (1.5, 'max')}
#: Single configuration: hrdf_ros's time / hebi-py's at most this, every case.
SINGLE_MAX = 0.7


def clock(kind: str):
    """The timer: the thread's CPU time or wall time (s)."""
    return time.thread_time if kind == 'cpu' else time.perf_counter


def interleaved(fns: dict, rounds: int, timer) -> dict:
    """Best time (s) of one call of each fn(), timed in turn, every other round in
    reverse order (a, b, c, c, b, a, ...): a large allocation costs less right after a
    large one was freed (the kernel hands back the same pages), so each call gets both
    neighbours."""
    best = {k: float('inf') for k in fns}
    order = list(fns)
    for round_ in range(rounds):
        for key in (order if round_ % 2 == 0 else order[::-1]):
            start = timer()
            fns[key]()
            best[key] = min(best[key], timer() - start)
    return best


def paired_per_call(fns: dict, numbers: dict, timer, repeat: int = 7) -> dict:
    """Best time (s) of one call of each fn(), timed in turn in runs of ``numbers``."""
    best = {k: float('inf') for k in fns}
    for _ in range(repeat):
        for key, fn in fns.items():
            t = timeit.timeit(fn, number=numbers[key], timer=timer)
            best[key] = min(best[key], t / numbers[key])
    return best


def ours_of(kin) -> dict:
    """case -> hrdf_ros's call f(q, out=None, threads=1) on ``kin``'s path."""
    return {
        'end-effector FK': lambda q, out=None, threads=1: kin.end_effector(
            q, out=out, threads=threads),
        'all output frames': lambda q, out=None, threads=1: kin.frames(
            'output', q, out=out, threads=threads),
        'end-effector Jacobian': lambda q, out=None, threads=1: kin.end_effector_jacobian(
            q, out=out, threads=threads),
        'all Jacobians (output)': lambda q, out=None, threads=1: kin.jacobians(
            'output', q, out=out, threads=threads)}


def peers_of(hebi, pin, pk, n_out: int, dof: int) -> dict:
    """case -> (hebi-py(x), Pinocchio(qp), pytorch_kinematics(th), result shape per
    configuration)."""
    return {
        'end-effector FK': (hebi.get_end_effector, pin and pin.end_effector,
                            pk and pk.end_effector, (4, 4)),
        'all output frames': (lambda x: hebi.get_forward_kinematics_mat('output', x),
                              pin and pin.outputs, pk and pk.outputs, (n_out, 4, 4)),
        'end-effector Jacobian': (hebi.get_jacobian_end_effector,
                                  pin and pin.end_effector_jacobian,
                                  pk and pk.end_effector_jacobian, (6, dof)),
        'all Jacobians (output)': (lambda x: hebi.get_jacobians_mat('output', x),
                                   pin and pin.all_jacobians, pk and pk.all_jacobians,
                                   (n_out, 6, dof)),
    }


def agreement(kin, hebi, pin, pk, q_all, qp_all) -> dict:
    """Largest difference from hebi-py on the first 200 configurations (``kin``: the
    Kinematics of each path)."""
    check = q_all[:200]
    ee_h = np.stack([hebi.get_end_effector(x) for x in check])
    jac_h = np.stack([hebi.get_jacobian_end_effector(x) for x in check])
    out_h = np.stack([hebi.get_forward_kinematics_mat('output', x) for x in check])
    out = np.empty(out_h.shape)
    agree = {f'hrdf_ros ({k.path})': max(
        np.abs(k.end_effector(check) - ee_h).max(),
        np.abs(k.end_effector_jacobian(check) - jac_h).max(),
        np.abs(k.frames('output', check) - out_h).max(),
        np.abs(k.frames('output', check, out=out) - out_h).max(),
        max(np.abs(k.end_effector(x) - e).max() for x, e in zip(check, ee_h)))
        for k in kin}
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
    return agree


def run_kit(path: str, args) -> list:
    from hebi.robot_model import import_from_hrdf

    name = os.path.splitext(os.path.basename(path))[0]
    model = load(path)
    kin, kin_numpy = Kinematics(model), Kinematics(model, 'numpy')
    hebi = import_from_hrdf(path)
    # the peers get the rigid gripper HEBI's library models (no finger joints)
    tree = build_frame_tree(model, gripper_joints=False)
    urdf = to_urdf(model, name, tree=tree, gripper_joints=False)
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
    dof, n_out = model.dof_count, model.frame_count('output')
    rng = np.random.default_rng(args.seed)
    q_all = rng.uniform(-np.pi, np.pi, (max(args.batches), dof))
    loop = q_all[:args.loop_limit]
    qp_all = [pin.configuration(x) for x in loop] if pin is not None else None
    th_loop = pk.tensor(loop) if pk is not None else None
    timer = clock(args.clock)

    threads = os.cpu_count() or 1
    print(f'\n== {name}: {dof} DoF, {n_out} output frames; ours: the {kin.path} path ==')
    print('  max |difference from hebi-py| (EE pose, EE Jacobian; hrdf_ros also output '
          'frames, with and without out=, and one call): ' + ', '.join(
              f'{k} {v:.1e}' for k, v in agreement((kin, kin_numpy), hebi, pin, pk, q_all,
                                                    qp_all).items()))
    print(f'  {"case":<24}{"N":>8} {"us/call":>9} {"ours":>7} {"limit":>6} {"/limit":>7} '
          f'{"numpy":>7} {"out=":>6} {"refill":>6} {"/refill":>7} {"T thr":>7} {"hebi":>7} '
          f'{"pin":>7} {"pk":>7} {"hebi/us":>8} {"pin/us":>7} {"pk/us":>7}\n'
          '  (us per configuration; limit: allocate and fill the result + numpy sin and '
          'cos of the positions; refill: fill an existing array of its size; T thr: ours '
          f'on {threads} threads)')
    rows = []
    numpy_calls = ours_of(kin_numpy)
    for case, ours in ours_of(kin).items():
        hebi_one, pin_one, pk_batch, shape = peers_of(hebi, pin, pk, n_out, dof)[case]
        numpy_one = numpy_calls[case]
        for n in args.batches:
            row = dict(kit=name, case=case, n=n)
            if n == 1:
                x = q_all[0]
                fns = {'ours': lambda: ours(x), 'numpy': lambda: numpy_one(x),
                       'hebi': lambda: hebi_one(x)}
                numbers = {'ours': 2000, 'numpy': 2000, 'hebi': 2000, 'pin': 2000, 'pk': 100}
                if pin_one:
                    fns['pin'] = lambda: pin_one(qp_all[0])
                if pk_batch:
                    th0 = pk.tensor(x)
                    fns['pk'] = lambda: pk_batch(th0)
                times = paired_per_call(fns, numbers, timer)
                row.update({f'{k}_us': v * 1e6 for k, v in times.items()})
            else:
                batch, kept = q_all[:n], np.empty((n,) + shape)
                kept.fill(0.0)                      # touched: what out= reuses
                fns = {'limit': lambda: (np.empty((n,) + shape).fill(1.0), np.sin(batch),
                                         np.cos(batch)),
                       'ours': lambda: ours(batch),
                       'numpy': lambda: numpy_one(batch),
                       'refill': lambda: kept.fill(1.0),
                       'out': lambda: ours(batch, out=kept)}
                per = {k: n for k in fns}
                if n == max(args.batches):      # on every core: wall time, apart
                    ours(batch, threads=threads)    # compiled (numba) before it is timed
                    wall = min(timeit.repeat(lambda: ours(batch, threads=threads),
                                             number=1, repeat=args.rounds))
                    row['threads_us'] = wall / n * 1e6
                    fns['hebi'] = lambda: [hebi_one(x) for x in loop]
                    per['hebi'] = len(loop)
                    if pin_one:
                        fns['pin'] = lambda: [pin_one(x) for x in qp_all]
                        per['pin'] = len(loop)
                    if pk_batch:
                        fns['pk'] = lambda: pk_batch(th_loop)
                        per['pk'] = len(loop)
                times = interleaved(fns, args.rounds, timer)
                row.update({f'{k}_us': v / per[k] * 1e6 for k, v in times.items()})
                del kept
            rows.append(row)
            print('  ' + format_row(row))

    ours_load = min(timeit.repeat(lambda: Kinematics(load(path)), number=20, repeat=3)) / 20
    hebi_load = min(timeit.repeat(lambda: import_from_hrdf(path), number=20, repeat=3)) / 20
    print(f'  HRDF load: hrdf_ros {ours_load * 1e3:.3f} ms (parse + kinematics), '
          f'hebi-py {hebi_load * 1e3:.3f} ms')
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


def cell(row: dict, key: str, ratio: str = '', width: int = 7) -> str:
    """A value of a row (us), or a ratio: 'over' ours / key, 'under' key / ours."""
    if f'{key}_us' not in row:
        return f'{"-":>{width}}'
    value = row[f'{key}_us']
    if ratio == 'over':
        return f'{row["ours_us"] / value:{width}.2f}'
    if ratio == 'under':
        return f'{value / row["ours_us"]:{width}.1f}'
    return f'{value:{width}.3f}'


def format_row(row: dict) -> str:
    out_ratio = (f'{row["out_us"] / row["refill_us"]:7.2f}' if 'out_us' in row
                 else f'{"-":>7}')
    return (f'{row["case"]:<24}{row["n"]:>8} {row["ours_us"] * row["n"]:9.1f} '
            f'{cell(row, "ours")} {cell(row, "limit", width=6)} {cell(row, "limit", "over")} '
            f'{cell(row, "numpy")} {cell(row, "out", width=6)} {cell(row, "refill", width=6)} '
            f'{out_ratio} {cell(row, "threads")} '
            f'{cell(row, "hebi")} {cell(row, "pin")} {cell(row, "pk")} '
            f'{cell(row, "hebi", "under", 8)} {cell(row, "pin", "under")} '
            f'{cell(row, "pk", "under")}')


def checks(rows: list, big: int):
    """(row, label, value, ok) of every target of the issue in this run."""
    for row in rows:
        if row['n'] == big:
            for (case, key), (bound, sense) in BATCH_TARGETS.items():
                if case != row['case'] or f'{key}_us' not in row:
                    continue
                value, label = row['ours_us'] / row[f'{key}_us'], f'ours / {key}'
                ok = value <= bound if sense == 'max' else value >= bound
                yield row, (f'N={big} {case}: {label} {"<=" if sense == "max" else ">="} '
                            f'{bound:g}'), value, ok
        elif row['n'] == 1:
            value = row['ours_us'] / row['hebi_us']
            yield row, f'single {row["case"]}: ours / hebi <= {SINGLE_MAX:g}', value, \
                value <= SINGLE_MAX


def report(rows: list, big: int) -> None:
    """Targets with PASS/FAIL, then the documentation's table (markdown)."""
    print('\nTargets (PASS/FAIL per kit, ratios of this run):')
    summary = {}
    for row, label, value, ok in checks(rows, big):
        print(f'  {"PASS" if ok else "FAIL"}  {row["kit"]:<32}{label:<58} {value:6.2f}')
        summary.setdefault(label, []).append((value, ok))
    print('\nTargets over all kits (doc/explanation/benchmarks.md):\n\n'
          '| target | this run | |\n|---|---|---|')
    for label, results in summary.items():
        values = [v for v, _ in results]
        print(f'| {label} | {min(values):.2f}-{max(values):.2f} | '
              f'{"pass" if all(ok for _, ok in results) else "**fail**"} |')
    print(f'\nBenchmarks table (doc/explanation/benchmarks.md), N={big}:\n')
    print(f'| kit | case | N={big // 1000}k: us/config | limit | ours / limit | numpy path | '
          'out= / refill | all cores | hebi-py / ours | Pinocchio / ours | '
          'pytorch_kinematics / ours | 1 call: ours, numpy (hebi-py), us |')
    print('|---|---|---|---|---|---|---|---|---|---|---|---|')
    single = {(r['kit'], r['case']): r for r in rows if r['n'] == 1}
    for row in rows:
        if row['n'] != big:
            continue
        one = single.get((row['kit'], row['case']))
        ones = (f'{one["ours_us"]:.2f}, {one["numpy_us"]:.2f} ({one["hebi_us"]:.2f})'
                if one else '-')
        peers = ' | '.join(f'{row[k + "_us"] / row["ours_us"]:.1f}x' if k + '_us' in row
                           else '-' for k in ('hebi', 'pin', 'pk'))
        cores = f'{row["threads_us"]:.3f}' if 'threads_us' in row else '-'
        print(f'| {row["kit"]} | {row["case"]} | {row["ours_us"]:.3f} | '
              f'{row["limit_us"]:.3f} | {row["ours_us"] / row["limit_us"]:.2f} | '
              f'{row["numpy_us"]:.3f} | {row["out_us"] / row["refill_us"]:.2f} | {cores} | '
              f'{peers} | {ones} |')


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


def load_average() -> str:
    return 'load average %.2f %.2f %.2f' % os.getloadavg()


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--kits', nargs='+', default=DEFAULT_KITS,
                        help='kit names in ../shared/hrdf/kits or HRDF paths')
    parser.add_argument('--batches', nargs='+', type=int, default=list(BATCHES))
    parser.add_argument('--loop-limit', type=int, default=20_000,
                        help='configurations timed for loop-based libraries')
    parser.add_argument('--rounds', type=int, default=5,
                        help='interleaved rounds per batch size (best of)')
    parser.add_argument('--clock', choices=('cpu', 'wall'), default='cpu',
                        help="the thread's CPU time (default) or wall time")
    parser.add_argument('--seed', type=int, default=1)
    parser.add_argument('--no-pinocchio', action='store_true')
    parser.add_argument('--no-pytorch-kinematics', action='store_true')
    parser.add_argument('--no-startup', action='store_true',
                        help='skip the numba start-up measurement (cold and warm cache)')
    args = parser.parse_args(argv)
    import hebi  # noqa: F401  (fail early with a clear message if missing)
    print(f'{machine()}; python {sys.version.split()[0]}, numpy {np.__version__}, '
          f'hebi-py {getattr(hebi, "__version__", "?")}, ' + ', '.join(
              f'{name} {version}' for name, version in peer_versions())
          + f'; BLAS threads {os.environ.get("OPENBLAS_NUM_THREADS")}; clock '
          f'{args.clock}; {load_average()}')
    rows = []
    for kit in args.kits:
        path = kit if os.path.exists(kit) else os.path.join(KITS_DIR, kit + '.hrdf')
        rows += run_kit(path, args)
    if not args.no_startup:
        from numba_startup import startup_report
        first = args.kits[0]
        path = first if os.path.exists(first) else os.path.join(KITS_DIR, first + '.hrdf')
        print(f'\nFirst kinematics calls in a new process ({os.path.basename(path)}; '
              'numba_startup.py):')
        print(startup_report(path))
    print(f'\nAt the end: {load_average()}')
    report(rows, max(args.batches))
    return 0


if __name__ == '__main__':
    sys.exit(main())
