"""``hrdf meshes``: which mesh source the exports use, and ``hrdf meshes fetch``.

In: parsed arguments. Out: a report on stdout (``hrdf meshes``: every source of the rule
in :mod:`hrdf_ros.parts.mesh_sources`, the one in use and what it lacks), or the files
downloaded into the user cache (``hrdf meshes fetch``: HEBI's part meshes of the pinned
commit from ``--url``, each checked against its SHA-256; ``hrdf meshes fetch FILE...``:
the web meshes of those HRDF files; ``--mesh-dir DIR``: into DIR instead). Exit codes as every subcommand: 0, 1 (invalid HRDF),
2 (a download that fails: one line naming the URL and the reason).
"""
from __future__ import annotations

import os
import sys

from ..parts.hebi_mesh_files import COMMIT, DEFAULT_URL, FILES
from ..parts.mesh_fetch import MeshDownloadError, fetch_hebi_meshes, fetch_web_meshes
from ..parts.mesh_sources import (MESH_DIR_VARIABLE, PACKAGE, MeshSource, MeshSourceError,
                                  hebi_cache_folder, mesh_source, package_share,
                                  web_cache_folder)
from ..hrdf.diagnostics import HrdfError
from ..hrdf.reader import load
from .common import EXIT_INVALID, EXIT_OK, UsageError, note


def _count(folder) -> str:
    if not folder or not os.path.isdir(folder):
        return 'no folder'
    present = sum(os.path.isfile(os.path.join(folder, name)) for name in FILES)
    return f'{present} of {len(FILES)} files'


def _status(args) -> int:
    try:
        source = mesh_source(args.mesh_dir, args.meshes)
    except MeshSourceError as exc:
        raise UsageError(str(exc)) from None
    mesh_dir = args.mesh_dir or os.environ.get(MESH_DIR_VARIABLE)
    share = package_share(PACKAGE)
    cache = hebi_cache_folder()
    print(f'HEBI part meshes (hebi_description {COMMIT[:7]}, {len(FILES)} files), first '
          'source found is used:')
    print(f'  1. --mesh-dir / {MESH_DIR_VARIABLE}: '
          + (f'{mesh_dir} ({_count(source.folder if source.kind == "mesh_dir" else mesh_dir)})'
             if mesh_dir else 'not set'))
    print(f'  2. {PACKAGE} (ament index): '
          + (f'{share} ({_count(os.path.join(share, "meshes"))})' if share else
             'not on AMENT_PREFIX_PATH'))
    print(f'  3. cache: {cache} ({_count(cache)}; `hrdf meshes fetch` fills it)')
    print('  4. primitives')
    print(f'in use: {_describe(source)}')
    missing = source.missing()
    if source.kind != 'primitives' and missing:
        print(f'missing there (drawn as primitives): {", ".join(missing)}')
    web = web_cache_folder()
    count = sum(len(files) for _, _, files in os.walk(web)) if os.path.isdir(web) else 0
    print(f'web meshes (`hrdf meshes fetch FILE.hrdf`): {web} ({count} files)')
    return EXIT_OK


def _describe(source: MeshSource) -> str:
    if source.kind == 'primitives':
        return f'primitives ({source.origin})'
    where = source.folder or 'hebi_description not installed here'
    return f'{source.kind} ({source.origin}): {where}'


def _fetch(args) -> int:
    if args.files:
        models = []
        for path in args.files:
            try:
                models.append(load(path, strict=args.strict))
            except HrdfError as exc:
                for d in exc.diagnostics:
                    print(d, file=sys.stderr)
                return EXIT_INVALID
        for path, model in zip(args.files, models):
            fetched = fetch_web_meshes(model, args.mesh_dir or None)
            note(f'{path}: {len(fetched)} web mesh(es) downloaded into '
                 f'{args.mesh_dir or web_cache_folder()}')
        return EXIT_OK
    folder = args.mesh_dir or hebi_cache_folder()
    fetched = fetch_hebi_meshes(args.url, folder)
    note(f'{len(fetched)} HEBI mesh file(s) downloaded and checked, {len(FILES)} in '
         f'{folder}' if fetched else f'all {len(FILES)} HEBI mesh files already in {folder}')
    return EXIT_OK


def cmd_meshes(args) -> int:
    """``hrdf meshes [fetch [FILE...]]``: the mesh sources, or download into the cache."""
    if args.action != 'fetch':
        if args.files:
            raise UsageError('hrdf meshes takes files only after "fetch"')
        return _status(args)
    try:
        return _fetch(args)
    except (MeshDownloadError, MeshSourceError) as exc:
        raise UsageError(str(exc)) from None


def add_parser(sub) -> None:
    """The ``meshes`` subcommand of ``hrdf``."""
    p = sub.add_parser('meshes', help='show where HEBI meshes come from; "fetch" downloads '
                                      'them into the user cache')
    p.add_argument('action', nargs='?', choices=('fetch',),
                   help='fetch: download HEBI\'s part meshes (or, with FILEs, their web '
                        'meshes)')
    p.add_argument('files', nargs='*', metavar='FILE',
                   help='HRDF files whose http(s) mesh_path files to download')
    p.add_argument('--url', default=DEFAULT_URL, metavar='BASE',
                   help='where <BASE>/meshes/<file> are (default: HEBI\'s repository at '
                        'the pinned commit; a local mirror works too)')
    p.add_argument('--mesh-dir', metavar='DIR',
                   help='the mesh folder to report on; with fetch: download into DIR '
                        '(web meshes into DIR/<host>/<path>) instead of the cache')
    p.add_argument('--meshes', default='auto', choices=('auto', 'package', 'primitives'),
                   help='report the source these options give')
    p.set_defaults(run=cmd_meshes)
    return p
