"""Kinematics benchmark: hrdf_ros vs hebi-py (HEBI's C library), Pinocchio and
pytorch_kinematics, and vs the memory floor.

Run with ``make bench`` (installs Pinocchio, torch (CPU) and pytorch-kinematics into
.venv first). All libraries get the same random configurations; Pinocchio and
pytorch_kinematics load the URDF that hrdf_ros generates (benchmarks/peers.py). hebi-py
and Pinocchio have no batch API, so their batches are Python loops over single calls;
pytorch_kinematics is batched (float64, CPU, one thread). Their per-configuration cost
is constant at large N, so they are timed on ``--loop-limit`` configurations.

Per kit and case, at each batch size N: hrdf_ros per configuration, allocating its
result (``ours``) and filling a caller's array (``out=``), next to the two *floors* of
the result's size: allocating and filling a new array (``floor``, what any call that
returns a new array pays) and refilling an existing one (``refill``, what a call with
``out=`` pays at least). At the largest N the peers too. Everything at one N is timed in
rounds, interleaved (floor, ours, refill, out=, hebi-py, Pinocchio, pytorch_kinematics,
then the same in reverse), best of ``--rounds``, so that a busy spell of a shared machine
falls on all of them; single calls are timed in turn likewise. Times are the thread's CPU time by
default (``--clock cpu``: time the process is descheduled is not counted, page faults
are), or wall time (``--clock wall``). The load average is printed before and after.

Then the issue's targets with PASS/FAIL from ratios of this run, and the documentation's
table as markdown (doc/explanation/benchmarks.md: paste it there).
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

from peers import Pinocchio, PyTorchKinematics  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
KITS_DIR = os.path.normpath(os.path.join(HERE, '..', '..', 'shared', 'hrdf', 'kits'))
# Not the 18-DoF hexapod: hebi-py 2.16.1's end-effector Jacobian crashes (SIGSEGV) on a
# robot with several end effectors.
DEFAULT_KITS = ['A-2085-06', 'A-2099-07', 'X-Series-Double-Shoulder-7DOF',
                'R-Series-Double-Shoulder-7DOF']
BATCHES = (1, 100, 10_000, 100_000)
CASES = ('end-effector FK', 'all output frames', 'end-effector Jacobian',
         'all Jacobians (output)')
EVERY_FRAME = ('all output frames', 'all Jacobians (output)')
#: Targets at the largest N: (case, ratio) -> (bound, 'min' or 'max'). Ratios:
#: ``floor`` ours / floor, ``refill`` ours with out= / refill, peer: peer / ours.
BATCH_TARGETS = {
    ('all output frames', 'floor'): (1.5, 'max'), ('all output frames', 'refill'): (1.5, 'max'),
    ('all output frames', 'hebi'): (20.0, 'min'), ('all output frames', 'pin'): (2.0, 'min'),
    ('all Jacobians (output)', 'floor'): (1.5, 'max'),
    ('all Jacobians (output)', 'refill'): (1.5, 'max'),
    ('all Jacobians (output)', 'hebi'): (10.0, 'min'),
    ('all Jacobians (output)', 'pin'): (2.0, 'min')}
BATCH_TARGETS.update({(case, 'pk'): (1.0, 'min') for case in CASES})
#: Single configuration: hrdf_ros's time / hebi-py's at most this, every case.
SINGLE_MAX = 1.0


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


def cases_of(kin, hebi, pin, pk, n_out: int, dof: int) -> dict:
    """case -> (ours(q, out=None), hebi-py(x), Pinocchio(qp), pytorch_kinematics(th),
    result shape per configuration)."""
    return {
        'end-effector FK': (
            kin.end_effector, hebi.get_end_effector, pin and pin.end_effector,
            pk and pk.end_effector, (4, 4)),
        'all output frames': (
            lambda q, out=None: kin.frames('output', q, out=out),
            lambda x: hebi.get_forward_kinematics_mat('output', x), pin and pin.outputs,
            pk and pk.outputs, (n_out, 4, 4)),
        'end-effector Jacobian': (
            kin.end_effector_jacobian, hebi.get_jacobian_end_effector,
            pin and pin.end_effector_jacobian, pk and pk.end_effector_jacobian, (6, dof)),
        'all Jacobians (output)': (
            lambda q, out=None: kin.jacobians('output', q, out=out),
            lambda x: hebi.get_jacobians_mat('output', x), pin and pin.all_jacobians,
            pk and pk.all_jacobians, (n_out, 6, dof)),
    }


def agreement(kin, hebi, pin, pk, q_all, qp_all) -> dict:
    """Largest difference from hebi-py on the first 200 configurations."""
    check = q_all[:200]
    ee_h = np.stack([hebi.get_end_effector(x) for x in check])
    jac_h = np.stack([hebi.get_jacobian_end_effector(x) for x in check])
    out_h = np.stack([hebi.get_forward_kinematics_mat('output', x) for x in check])
    out = np.empty(out_h.shape)
    agree = {'hrdf_ros': max(np.abs(kin.end_effector(check) - ee_h).max(),
                             np.abs(kin.end_effector_jacobian(check) - jac_h).max(),
                             np.abs(kin.frames('output', check) - out_h).max(),
                             np.abs(kin.frames('output', check, out=out) - out_h).max())}
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
    dof, n_out = model.dof_count, model.frame_count('output')
    rng = np.random.default_rng(args.seed)
    q_all = rng.uniform(-np.pi, np.pi, (max(args.batches), dof))
    loop = q_all[:args.loop_limit]
    qp_all = [pin.configuration(x) for x in loop] if pin is not None else None
    th_loop = pk.tensor(loop) if pk is not None else None
    timer = clock(args.clock)

    print(f'\n== {name}: {dof} DoF, {n_out} output frames ==')
    print('  max |difference from hebi-py| (EE pose, EE Jacobian; hrdf_ros also output '
          'frames, with and without out=): ' + ', '.join(
              f'{k} {v:.1e}' for k, v in agreement(kin, hebi, pin, pk, q_all, qp_all).items()))
    print(f'  {"case":<24}{"N":>8} {"us/call":>9} {"ours":>7} {"floor":>6} {"/floor":>7} '
          f'{"out=":>6} {"refill":>6} {"/refill":>7} {"hebi":>7} {"pin":>7} {"pk":>7} '
          f'{"hebi/us":>8} {"pin/us":>7} {"pk/us":>7}\n'
          '  (us per configuration; floor: allocate and fill the result; refill: fill '
          'an existing array of its size)')
    rows = []
    for case, (ours, hebi_one, pin_one, pk_batch, shape) in cases_of(
            kin, hebi, pin, pk, n_out, dof).items():
        for n in args.batches:
            row = dict(kit=name, case=case, n=n)
            if n == 1:
                x = q_all[0]
                fns = {'ours': lambda: ours(x), 'hebi': lambda: hebi_one(x)}
                numbers = {'ours': 2000, 'hebi': 2000, 'pin': 2000, 'pk': 100}
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
                fns = {'floor': lambda: np.empty((n,) + shape).fill(1.0),
                       'ours': lambda: ours(batch),
                       'refill': lambda: kept.fill(1.0),
                       'out': lambda: ours(batch, out=kept)}
                per = {k: n for k in fns}
                if n == max(args.batches):
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
            f'{cell(row, "ours")} {cell(row, "floor", width=6)} {cell(row, "floor", "over")} '
            f'{cell(row, "out", width=6)} {cell(row, "refill", width=6)} {out_ratio} '
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
                if key == 'floor':
                    value, label = row['ours_us'] / row['floor_us'], 'ours / floor'
                elif key == 'refill':
                    value, label = row['out_us'] / row['refill_us'], 'out= / refill'
                else:
                    value, label = row[f'{key}_us'] / row['ours_us'], f'{key} / ours'
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
    print(f'| kit | case | N={big // 1000}k: us/config | ours / floor | out=: us/config | '
          'out= / refill | hebi-py / ours | Pinocchio / ours | pytorch_kinematics / ours | '
          '1 call: ours (hebi-py) |')
    print('|---|---|---|---|---|---|---|---|---|---|')
    single = {(r['kit'], r['case']): r for r in rows if r['n'] == 1}
    for row in rows:
        if row['n'] != big:
            continue
        one = single.get((row['kit'], row['case']))
        ones = f'{one["ours_us"]:.1f} us ({one["hebi_us"]:.1f})' if one else '-'
        peers = ' | '.join(f'{row[k + "_us"] / row["ours_us"]:.1f}x' if k + '_us' in row
                           else '-' for k in ('hebi', 'pin', 'pk'))
        print(f'| {row["kit"]} | {row["case"]} | {row["ours_us"]:.2f} | '
              f'{row["ours_us"] / row["floor_us"]:.2f} | {row["out_us"]:.2f} | '
              f'{row["out_us"] / row["refill_us"]:.2f} | {peers} | {ones} |')


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
    print(f'\nAt the end: {load_average()}')
    report(rows, max(args.batches))
    return 0


if __name__ == '__main__':
    sys.exit(main())
