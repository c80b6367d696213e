"""Where mesh files come from: one rule for ``hrdf urdf|sdf|moveit``, the xacro macro, the
node and the viewer.

In: the options (``mesh_dir``, ``meshes``) and the environment. Out: a
:class:`MeshSource`, which says what to write for each HEBI part mesh (a ``file://`` or
``package://`` URI, or ``None``: draw primitives), and local copies of web meshes.

HEBI's part meshes (hebi_description's ``meshes/*.stl``), first rule that applies:

1. ``mesh_dir`` (``--mesh-dir DIR``, node parameter ``mesh_dir``), else the environment
   variable ``HRDF_ROS_MESH_DIR``: the files in that folder (or in its ``meshes/``
   subfolder: a hebi_description checkout), written as absolute ``file://`` URIs;
2. hebi_description installed, found through the ament index (``AMENT_PREFIX_PATH``, as
   after HEBI's colcon instructions): ``package://hebi_description/meshes/<file>``, what
   RViz, MoveIt and Gazebo users expect;
3. the user cache that ``hrdf meshes fetch`` fills (:func:`cache_dir`; the files of the
   pinned commit, :mod:`.hebi_mesh_files`, each checked against its SHA-256): ``file://``
   URIs;
4. none: every part is drawn with primitives (its collision shapes, coloured), and the
   export adds one note saying how to get meshes (:func:`MeshSource.note`).

``meshes='primitives'`` (``--meshes primitives``) forces 4 without a note, also for an
HRDF's own ``mesh_path`` meshes; ``meshes='package'`` (``--meshes package``, formerly
``--hebi-meshes``) forces 2 whether or not hebi_description is installed here (for a
description used on another machine). A file the chosen source lacks is drawn with
primitives; the note names it. Collision geometry never depends on the source (it is
:mod:`.part_collision`'s primitives).

Web meshes (``mesh_path="https://..."``, HRDF 1.4.0+) are looked up as
``<mesh_dir>/<host>/<path>`` (where ``--mesh-dir`` downloaded them before), then in the
cache's ``web/<host>/<path>`` (``hrdf meshes fetch FILE.hrdf``); a copy found is written
as a ``file://`` URI, else the URL stays (visual only).

The cache folder is ``HRDF_ROS_CACHE_DIR`` when set, else platformdirs' user cache
directory for ``hrdf_ros`` (``~/.cache/hrdf_ros`` on Linux). Nothing here downloads
(:mod:`.mesh_fetch` does, only when asked). :func:`local_mesh_path` turns any mesh
reference back into a local file (for viewers).
"""
from __future__ import annotations

import os
import re
import urllib.parse
from dataclasses import dataclass, field
from typing import FrozenSet, List, Mapping, Optional

from .hebi_mesh_files import COMMIT, FILES
from ..cache_dir import cache_dir
from ..hrdf.sources import package_share

#: ``meshes`` option values.
MESH_MODES = ('auto', 'package', 'primitives')
#: Environment variables read by the rule.
MESH_DIR_VARIABLE = 'HRDF_ROS_MESH_DIR'
#: The ROS package with HEBI's meshes.
PACKAGE = 'hebi_description'
#: What the one-line note tells a user without meshes.
FETCH_HINT = ('`hrdf meshes fetch` downloads them once, or install hebi_description, or '
              'give --mesh-dir / HRDF_ROS_MESH_DIR')

_SAFE = re.compile(r'[^A-Za-z0-9._-]')


class MeshSourceError(ValueError):
    """A mesh option that cannot be used (unknown mode, a mesh_dir that is no folder)."""


def file_uri(path: str) -> str:
    """``file://`` + the absolute path (not percent-encoded: ROS's resource_retriever,
    Drake, Pinocchio and PyBullet read it verbatim)."""
    return 'file://' + os.path.abspath(path)


def hebi_cache_folder(environ: Optional[Mapping[str, str]] = None) -> str:
    """Cache folder of the pinned hebi_description meshes."""
    return os.path.join(cache_dir(environ), PACKAGE, COMMIT, 'meshes')


def web_cache_folder(environ: Optional[Mapping[str, str]] = None) -> str:
    """Cache folder of downloaded web meshes (``<host>/<path>`` below it)."""
    return os.path.join(cache_dir(environ), 'web')


def local_name(url: str) -> str:
    """Relative path of a web mesh's copy: ``<host>/<path segments>``, each reduced to
    ``A-Za-z0-9._-`` (no ``..``, no absolute paths; a query goes into the file name).

    Raises:
        MeshSourceError: when the URL has no host or no file name.
    """
    parts = urllib.parse.urlsplit(url)
    segments = [urllib.parse.unquote(s) for s in parts.path.split('/')]
    segments = [_SAFE.sub('_', s) for s in segments if s not in ('', '.', '..')]
    host = _SAFE.sub('_', parts.hostname or '')
    if not host or not segments:
        raise MeshSourceError(f'{url}: not a mesh URL (needs a host and a file name)')
    if parts.query:
        stem, dot, ext = segments[-1].rpartition('.')
        query = _SAFE.sub('_', parts.query)
        segments[-1] = f'{stem}_{query}.{ext}' if dot else f'{segments[-1]}_{query}'
    return os.path.join(host, *segments)


@dataclass(frozen=True)
class MeshSource:
    """Where HEBI's part meshes come from (see the module docstring).

    Attributes:
        kind: ``'mesh_dir'``, ``'package'``, ``'cache'`` or ``'primitives'``.
        folder: local folder holding the files (``None`` for primitives, and for a
            forced ``package`` source without a local hebi_description).
        origin: how it was chosen, for messages (``mesh_dir``, ``HRDF_ROS_MESH_DIR``,
            ``ament index``, ``cache``, ``meshes=primitives``, ``meshes=package``, or
            what was looked for in vain).
        mesh_dir: the user's mesh folder (also searched for web meshes), or ``None``.
        environ: the environment the rule read (for the web mesh cache).
        files: the file names in ``folder`` (listed once, when the source is chosen).
    """

    kind: str
    folder: Optional[str]
    origin: str
    mesh_dir: Optional[str] = None
    environ: Mapping[str, str] = field(default_factory=dict, compare=False, repr=False)
    files: FrozenSet[str] = field(default=frozenset(), compare=False, repr=False)

    def __post_init__(self):
        if self.folder and not self.files and os.path.isdir(self.folder):
            names = frozenset(n for n in os.listdir(self.folder)
                              if os.path.isfile(os.path.join(self.folder, n)))
            object.__setattr__(self, 'files', names)

    @property
    def forced_primitives(self) -> bool:
        """True when primitives were asked for (``meshes='primitives'``)."""
        return self.origin == 'meshes=primitives'

    def has(self, name: str) -> bool:
        """True when the source can give mesh file ``name``."""
        if self.kind == 'primitives':
            return False
        if self.folder is None:
            return self.kind == 'package'
        return name in self.files

    def reference(self, name: str) -> Optional[str]:
        """The URI to write for HEBI mesh file ``name``, or ``None`` (primitives)."""
        if not self.has(name):
            return None
        if self.kind == 'package':
            return f'package://{PACKAGE}/meshes/{name}'
        return file_uri(os.path.join(self.folder, name))

    def missing(self, names=None) -> List[str]:
        """The files of ``names`` (default: every pinned file) the source lacks."""
        return [n for n in sorted(FILES if names is None else names) if not self.has(n)]

    def web_copy(self, url: str) -> Optional[str]:
        """A local copy of web mesh ``url`` (mesh_dir, then the cache), or ``None``."""
        if self.forced_primitives:
            return None
        try:
            relative = local_name(url)
        except MeshSourceError:
            return None
        folders = ([self.mesh_dir] if self.mesh_dir else []) + [web_cache_folder(self.environ)]
        for folder in folders:
            path = os.path.join(folder, relative)
            if os.path.isfile(path):
                return os.path.abspath(path)
        return None

    def note(self, needed) -> str:
        """One line about HEBI meshes drawn as primitives among ``needed`` (file names),
        or ``''`` when every one has a mesh or primitives were asked for."""
        missing = self.missing(needed)
        if self.kind == 'package' and self.folder is None and needed:
            return (f'package://{PACKAGE} URIs written, but {PACKAGE} is not on '
                    'AMENT_PREFIX_PATH here: the URDF needs it where it is used')
        if not missing or self.forced_primitives:
            return ''
        if self.kind == 'primitives':
            return (f'HEBI part meshes not found ({self.origin}): parts drawn as primitives; '
                    + FETCH_HINT)
        return (f'{len(missing)} HEBI mesh file(s) not in {self.folder} ({self.origin}): '
                f'{", ".join(missing)} drawn as primitives; {FETCH_HINT}')


def mesh_source(mesh_dir: Optional[str] = None, meshes: str = 'auto',
                environ: Optional[Mapping[str, str]] = None) -> MeshSource:
    """The source of HEBI's part meshes by the rule of the module docstring.

    Args:
        mesh_dir: a folder with HEBI's mesh files (``''`` = not given).
        meshes: ``'auto'`` (the rule), ``'package'`` or ``'primitives'``.
        environ: the environment to read (default ``os.environ``).

    Raises:
        MeshSourceError: an unknown ``meshes`` value, or a mesh_dir (argument or
            ``HRDF_ROS_MESH_DIR``) that is not a folder.
    """
    environ = dict(os.environ if environ is None else environ)
    if meshes not in MESH_MODES:
        raise MeshSourceError(f'meshes must be one of {", ".join(MESH_MODES)}, '
                              f'got "{meshes}"')
    origin = 'mesh_dir' if mesh_dir else MESH_DIR_VARIABLE
    mesh_dir = mesh_dir or environ.get(MESH_DIR_VARIABLE) or None
    if mesh_dir is not None:
        if not os.path.isdir(mesh_dir):
            raise MeshSourceError(f'{origin} {mesh_dir}: not a folder')
        mesh_dir = os.path.abspath(mesh_dir)
    if meshes == 'primitives':
        return MeshSource('primitives', None, 'meshes=primitives', None, environ)
    share = package_share(PACKAGE, environ)
    package_folder = os.path.join(share, 'meshes') if share else None
    if meshes == 'package':
        return MeshSource('package', package_folder, 'meshes=package', mesh_dir, environ)
    if mesh_dir is not None:
        nested = os.path.join(mesh_dir, 'meshes')
        folder = nested if os.path.isdir(nested) and not os.path.isfile(
            os.path.join(mesh_dir, 'X5.stl')) else mesh_dir
        return MeshSource('mesh_dir', folder, origin, mesh_dir, environ)
    if package_folder is not None:
        return MeshSource('package', package_folder, 'ament index', None, environ)
    cached = hebi_cache_folder(environ)
    if os.path.isdir(cached) and any(n in FILES for n in os.listdir(cached)):
        return MeshSource('cache', cached, 'cache', None, environ)
    return MeshSource('primitives', None, f'no mesh_dir, no {PACKAGE} on AMENT_PREFIX_PATH, '
                      f'no cache in {cached}', None, environ)


def local_mesh_path(reference: str, environ: Optional[Mapping[str, str]] = None
                    ) -> Optional[str]:
    """The local file a URDF/SDF mesh reference names, for a viewer: ``file://`` URIs and
    plain paths as they are, ``package://<package>/<path>`` through the ament index,
    ``http(s)://`` URLs through the web mesh cache; ``None`` when there is no such file.
    """
    parsed = urllib.parse.urlsplit(reference)
    if parsed.scheme in ('', 'file'):
        path = urllib.parse.unquote(parsed.path) if parsed.scheme else reference
    elif parsed.scheme == 'package':
        share = package_share(parsed.netloc, environ)
        path = os.path.join(share, parsed.path.lstrip('/')) if share else None
    elif parsed.scheme in ('http', 'https'):
        try:
            path = os.path.join(web_cache_folder(environ), local_name(reference))
        except MeshSourceError:
            path = None
    else:
        path = None
    return path if path and os.path.isfile(path) else None
