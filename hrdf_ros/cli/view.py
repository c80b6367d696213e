"""``hrdf view FILE``: the robot in the browser, redrawn when the file changes.

In: parsed arguments (file, ``--host``, ``--port``, ``--positions``, the export options
of ``hrdf urdf``, ``--collision-objects``, ``--reach MAP.npz``, ``--task TASK.yaml`` with
``--configurations``). Out: the page's URL as the first line on stdout, then a server until
Ctrl-C or SIGTERM (exit 0). An invalid file exits 1 with its located errors on stderr
(as ``hrdf validate``); a missing ``view`` extra, a port that cannot be bound or a bad
option exit 2 with one line.

The browser view lives in :mod:`hrdf_ros.view` (viser, yourdfpy, trimesh: the ``view``
extra); it is imported only once this command runs, so the other commands never load it.
"""
from __future__ import annotations

import os
import sys

from .common import (EXIT_OK, UsageError, add_collision_object_options, add_gripper_option,
                     add_mesh_options, collision_objects_of, load_or_report, mesh_options,
                     parse_positions)

#: Seconds between looks at the file for live reload.
POLL_S = 0.2


def add_view_parser(sub, help_text: str = 'show the robot in the browser (live reload)'):
    """Register ``hrdf view`` on the subcommand parsers ``sub``."""
    p = sub.add_parser('view', help=help_text)
    p.add_argument('file', metavar='FILE')
    p.add_argument('--host', default='127.0.0.1',
                   help='address to listen on (default 127.0.0.1: this machine only)')
    p.add_argument('--port', type=int, default=8080,
                   help='port (default 8080; the next free one if taken; 0: any free one)')
    p.add_argument('--positions', help='start positions "q1 q2 ..." (rad / m, HEBI order); '
                                       'default zeros')
    p.add_argument('--name', help='robot name (default: file name)')
    p.add_argument('--joint-prefix', default='J', help='joint name prefix (default J)')
    p.add_argument('--limits', metavar='YAML', help='joint limits (slider ranges), as '
                                                    'hrdf urdf --limits')
    p.add_argument('--hebi-meshes', action='store_true',
                   help='deprecated: the same as --meshes package')
    add_mesh_options(p)
    add_gripper_option(p)
    add_collision_object_options(p)
    p.add_argument('--reach', metavar='MAP.npz',
                   help='draw a reach map (hrdf reach -o): its points coloured by index, '
                        'payload or manipulability; a click poses the arm there')
    p.add_argument('--task', metavar='TASK.yaml',
                   help='draw a design task (hrdf design): its targets, objects and floor, '
                        'and a list that poses the arm at each target')
    p.add_argument('--configurations', metavar='YAML',
                   help='with --task: the joint positions per target (hrdf design\'s '
                        'design-K.yaml; default: FILE\'s name with .yaml, when there is one; '
                        'else solved by collision-free IK)')
    p.set_defaults(run=cmd_view)
    return p


def _reach_map(path: str):
    """The map of ``--reach`` (UsageError: it cannot be read)."""
    from ..reach.result import ReachMap  # noqa: PLC0415 - only with --reach
    try:
        return ReachMap.load(path)
    except OSError as exc:
        raise UsageError(f'--reach: cannot read {path}: {exc.strerror or exc}') from None
    except ValueError as exc:
        raise UsageError(f'--reach: {exc}') from None


def _task(args, objects: list):
    """``(task, configurations, objects)`` of ``--task`` and ``--configurations``
    (UsageError: they cannot be read, or do not fit each other)."""
    if args.task is None:
        if args.configurations:
            raise UsageError('--configurations needs --task')
        return None, None, objects
    from ..design.output import read_configurations  # noqa: PLC0415 - only with --task
    from ..design.task import read_task  # noqa: PLC0415
    from ..view.task_targets import task_objects  # noqa: PLC0415
    try:
        task = read_task(args.task)
    except OSError as exc:
        raise UsageError(f'--task: cannot read {args.task}: {exc.strerror or exc}') from None
    except ValueError as exc:
        raise UsageError(f'--task: {exc}') from None
    try:
        objects = task_objects(task, objects)
    except ValueError as exc:
        raise UsageError(f'--task: {exc} (a name of the task\'s objects, its floor too, is taken '
                         'by --collision-objects or --floor)') from None
    given = args.configurations is not None    # else hrdf design's yaml beside the file
    path = args.configurations if given else os.path.splitext(args.file)[0] + '.yaml'
    try:
        names, rows = read_configurations(path, len(task.targets))
    except (OSError, ValueError) as exc:
        why = f'cannot read {path}: {exc.strerror or exc}' if isinstance(exc, OSError) \
            else str(exc)
        if given:
            raise UsageError(f'--configurations: {why}') from None
        if os.path.isfile(path):
            print(f'hrdf view: not using {path} ({why}); solving the targets by '
                  'collision-free IK', file=sys.stderr)
        return task, None, objects
    return task, (names, rows, os.path.basename(path)), objects


def cmd_view(args) -> int:
    """``hrdf view``: serve the page until Ctrl-C or SIGTERM; 0 then."""
    from ..stop_signals import stop_on_signals
    from ..view import INSTALL_HINT, exit_cleanly, missing_packages
    stop = stop_on_signals()
    print(f'hrdf view: loading {args.file}', file=sys.stderr, flush=True)
    missing = missing_packages()
    if missing:
        raise UsageError(f'hrdf view needs {INSTALL_HINT} (missing: {", ".join(missing)})')
    if not 0 <= args.port <= 65535:
        raise UsageError(f'--port must be 0..65535, got {args.port}')
    model, code = load_or_report(args)
    if model is None:
        return code
    positions = parse_positions(args.positions, model.dof_count)
    reach = _reach_map(args.reach) if args.reach else None
    task, configurations, objects = _task(args, collision_objects_of(args))
    if stop.is_set():
        return EXIT_OK
    from ..view.file_view import FileView, LoadFailed, ViewOptions
    from ..view.server import page_url, start_server, stop_server
    options = ViewOptions(strict=args.strict, joint_prefix=args.joint_prefix,
                          limits=args.limits, name=args.name,
                          gripper_joints=args.gripper_joints,
                          collision_objects=objects, reach=reach, task=task,
                          configurations=configurations,
                          **mesh_options(args))
    try:
        server = start_server(args.host, args.port,
                              label=f'hrdf view: {os.path.basename(args.file)}')
    except OSError as exc:
        raise UsageError(f'cannot listen on {args.host}:{args.port} '
                         f'({exc.strerror or exc})') from None
    try:
        try:
            view = FileView(server, args.file, options, positions)
        except LoadFailed as exc:
            raise UsageError('; '.join(line.replace('hrdf view: error: ', '')
                                       for line in exc.lines)) from None
        print(page_url(server), flush=True)
        if args.host not in ('127.0.0.1', 'localhost', '::1'):
            print(f'hrdf view: listening on {args.host}: whoever reaches this address can '
                  'see and move the view', file=sys.stderr)
        while not stop.wait(POLL_S):
            view.poll()
    finally:
        stop_server(server)
    return exit_cleanly(EXIT_OK)
