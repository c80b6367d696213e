"""``hrdf design``: from a job (targets, payload, objects) to the lightest HEBI module arms
that do it (:func:`hrdf_ros.design.design_arm`).

In: parsed arguments: the task file (YAML, :mod:`hrdf_ros.design.task`; or a CoBRA task
file, JSON: :mod:`hrdf_ros.design.cobra`), ``-o OUT``,
``--seed``, ``--evaluations``, ``--workers`` (processes of this machine), ``--cluster
ADDRESS`` (a running Dask scheduler), ``--top K``, ``--plot OUT.png``.
Out: ``OUT/designs.csv``, ``OUT/design-K.hrdf`` and ``OUT/design-K.yaml``
(:mod:`hrdf_ros.design.output`; for a CoBRA task also ``design-K.urdf`` and
``design-K.solution.json`` of the designs with a motion through the goals,
:mod:`hrdf_ros.design.jobs`); a summary on stdout (the best design's mass and modules,
the designs evaluated, the time and evaluations per second, how much lighter than the
lightest HEBI kit that meets the task); a progress bar on a terminal's stderr.
Exit 0 when a design meets the task (a CoBRA task: and has a motion through its goals);
1 when none does, with one line on stderr naming the closest design and what it misses
(or why the lightest that meet the task have no motion); 2 on bad input or without the
design extra (one line).
"""
from __future__ import annotations

import os
import sys
import time

from .common import EXIT_INVALID, EXIT_OK, UsageError
from .reach import progress_bar

#: What the design extra brings, and how to get it.
EXTRA_HINT = 'hrdf design needs the design extra: pip install "hrdf_ros[design]" ' \
             '(Optuna, Dask)'


def add_parser(sub) -> None:
    """Register ``hrdf design`` on the subcommand parsers ``sub``."""
    from ..design import DEFAULT_EVALUATIONS                        # noqa: PLC0415
    p = sub.add_parser('design', help='the lightest HEBI module arm that reaches every '
                                      'target free of collision and holds the payload')
    p.add_argument('task', metavar='TASK.yaml',
                   help="the task file (targets, payload, ...), or CoBRA's TASK.json")
    p.add_argument('-o', '--output', required=True, metavar='OUT',
                   help='folder for designs.csv, design-K.hrdf and design-K.yaml')
    p.add_argument('--seed', type=int, default=0, help='the search\'s seed (default 0)')
    p.add_argument('--evaluations', type=int, default=DEFAULT_EVALUATIONS, metavar='N',
                   help=f'designs to evaluate (default {DEFAULT_EVALUATIONS}; the same '
                        'designs for a seed and budget, whatever runs them)')
    p.add_argument('--workers', type=int, default=os.cpu_count() or 1, metavar='N',
                   help='processes of this machine (default: its CPUs)')
    p.add_argument('--cluster', metavar='ADDRESS',
                   help='a running Dask scheduler (tcp://host:8786): evaluate on its '
                        'workers instead')
    p.add_argument('--top', type=int, default=5, metavar='K',
                   help='designs written as HRDF and YAML (default 5)')
    p.add_argument('--plot', metavar='OUT.png',
                   help='the best arm at each target, beside mass against worst effort '
                        'ratio of every design (matplotlib: the plot extra)')
    p.set_defaults(run=cmd_design)


def _check_arguments(args) -> None:
    for option, value, least in (('--evaluations', args.evaluations, 1),
                                 ('--workers', args.workers, 1), ('--top', args.top, 1)):
        if value < least:
            raise UsageError(f'{option} must be at least {least}, got {value}')
    if args.plot:
        try:
            import matplotlib  # noqa: F401, PLC0415 - checked before the work
        except ImportError:
            raise UsageError('--plot needs matplotlib (pip install hrdf_ros[plot])') from None
        folder = os.path.dirname(os.path.abspath(args.plot))
        if not os.path.isdir(folder):
            raise UsageError(f'--plot: cannot write {args.plot}: no folder {folder}')
    if os.path.exists(args.output) and not os.path.isdir(args.output):
        raise UsageError(f'-o: {args.output} is a file, not a folder')
    try:
        import optuna  # noqa: F401, PLC0415
        if args.cluster:
            import distributed  # noqa: F401, PLC0415
    except ImportError:
        raise UsageError(EXTRA_HINT) from None


def _misses_line(evaluator, evaluation) -> str:
    reasons = evaluator.misses(evaluation)
    missed = [f'target {k + 1} ({why})' for k, why in enumerate(reasons) if why]
    return (f'no design meets the task; the closest, {evaluation.design.text()} '
            f'({evaluation.mass:.3f} kg), misses {", ".join(missed)}')


def _no_motion_line(solved) -> str:
    _, rows, motions = solved
    tried = [(e, m) for e, m in zip(rows, motions) if m is not None]
    if not tried:
        return 'no design meets the task'
    e, m = tried[0]
    return (f'none of the {len(tried)} lightest designs that meet the task has a motion '
            f'through the goals; the lightest, {e.design.text()} ({e.mass:.3f} kg): '
            f'{m.reason}')


def _job_lines(solved) -> list:
    from ..design.job_motion import JobMotion                       # noqa: PLC0415
    cobra, rows, motions = solved
    best, motion = rows[0], motions[0]
    x, y, z, yaw = best.design.base
    lines = [f'  base at ({x:.3f}, {y:.3f}, {z:.3f}) m, yaw {yaw:.4f} rad in the task\'s '
             'frame']
    if isinstance(motion, JobMotion):
        lines.append(f'  motion through the {len(motion.goal_times)} goals: cycle time '
                     f'{motion.cycle_time:.3f} s, worst effort ratio '
                     f'{motion.worst_effort_ratio:.3f} (design-1.solution.json, '
                     f'{cobra.task_id})')
    return lines


def summary(result, seconds: float, workers: str, solved=None):
    """The summary lines (module docstring); ``solved``: a CoBRA task's
    ``(CobraTask, rows, motions)`` (:func:`~hrdf_ros.design.jobs.solve_job`)."""
    best = solved[1][0] if solved else result.best[0]
    count = len(best.met)
    lines = [f'best design: {best.mass:.3f} kg, {len(best.design.actuators)} actuators: '
             f'{best.design.text()}'
             + ('' if best.design.end_effector == 'Custom'
                else f' + {best.design.end_effector}'),
             f'  meets {int(best.met.sum())} of {count} targets; worst effort ratio '
             f'{best.worst_effort_ratio:.3f}',
             *(_job_lines(solved) if solved else []),
             f'evaluated {len(result.evaluations)} designs in {seconds:.1f} s '
             f'({len(result.evaluations) / max(seconds, 1e-9):.2f} per second, {workers})']
    kit = result.lightest_kit()
    if kit is None:
        lines.append(f'no HEBI kit meets the task ({len(result.kits)} fit the space)')
    else:
        name, evaluation = kit
        saved = evaluation.mass - best.mass
        lines.append(f'{saved:.3f} kg ({saved / evaluation.mass:.0%}) lighter than the '
                     f'lightest HEBI kit that meets the task, {name} '
                     f'({evaluation.mass:.3f} kg)' if best.meets else
                     f'the lightest HEBI kit that meets the task: {name} '
                     f'({evaluation.mass:.3f} kg)')
    return lines


def cmd_design(args) -> int:
    """Run ``hrdf design`` (module docstring)."""
    _check_arguments(args)
    from ..design import read_task                                  # noqa: PLC0415
    from ..design.cobra import read_cobra_task                      # noqa: PLC0415
    cobra = None
    try:
        if args.task.lower().endswith('.json'):
            cobra = read_cobra_task(args.task)
            job = cobra.task
        else:
            job = read_task(args.task)
    except OSError as exc:
        raise UsageError(f'{args.task}: {exc.strerror or exc}') from None
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    from ..design import design_arm                                 # noqa: PLC0415
    from ..design.evaluate import Evaluator                          # noqa: PLC0415
    from ..design.output import write                               # noqa: PLC0415
    progress, bar = progress_bar(sys.stderr, ' designs')
    started = time.perf_counter()
    try:
        result = design_arm(job, seed=args.seed, evaluations=args.evaluations,
                            workers=args.workers, cluster=args.cluster, top=args.top,
                            progress=progress)
    except OSError as exc:
        raise UsageError(f'--cluster {args.cluster}: {exc}') from None
    finally:
        bar.close()
    seconds = time.perf_counter() - started
    where = f'cluster {args.cluster}' if args.cluster else \
        f'{args.workers} worker{"s" if args.workers > 1 else ""}'
    solved = None
    if cobra is not None:
        from ..design.jobs import solve_job                         # noqa: PLC0415
        rows, motions = solve_job(result, cobra, seed=args.seed)
        solved = (cobra, rows, motions)
    try:
        written = write(result, args.output, args.top, solved)
    except OSError as exc:
        raise UsageError(f'-o: cannot write {args.output}: {exc.strerror or exc}') from None
    for line in summary(result, seconds, where, solved):
        print(line)
    print(f'wrote {written[0]} and {len(written) - 1} design files in {args.output}')
    if args.plot:
        from .design_plot import plot_design                       # noqa: PLC0415
        try:
            plot_design(result, job, args.plot)
        except OSError as exc:
            raise UsageError(f'cannot write {args.plot}: {exc.strerror or exc}') from None
        print(f'wrote {args.plot}')
    if not result.meets:
        print(f'hrdf design: {_misses_line(Evaluator(job), result.best[0])}',
              file=sys.stderr)
        return EXIT_INVALID
    from ..design.job_motion import JobMotion                       # noqa: PLC0415
    if solved is not None and not isinstance(solved[2][0], JobMotion):
        print(f'hrdf design: {_no_motion_line(solved)}', file=sys.stderr)
        return EXIT_INVALID
    return EXIT_OK
