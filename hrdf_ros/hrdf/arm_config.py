"""HEBI arm configs (``*.cfg.yaml``): the file HEBI's arm API, hebi_hardware and
hebi_ros2_examples start an arm from.

In: a path, or ``PKG:FILE`` (``FILE`` inside the share folder of the installed ROS
package ``PKG``, found through the ament index, as hebi_hardware finds it). Out:
:class:`ArmConfig`: the joint names, the HRDF, the gains' velocity and effort bounds,
whether the arm has a gripper, and the ``config_pkg``/``config_file`` pair that
hebi_hardware's ``<hardware>`` parameters name it by.

Keys read (HEBI's format, as hebi_ros2_examples' README and hebi_description's
``config/arms`` use it; paths are relative to the config file):

* ``names``: the arm's module names, in joint order: the joint names, sanitised into ROS
  names (characters outside ``A-Z a-z 0-9 _ /`` are dropped, with a located warning,
  code ``config-name``; an error in strict mode). HEBI's A-2099-07 configs carry a stray
  quote (``J2A_shoulder1"``).
* ``hrdf``: the robot's HRDF.
* ``gains``: ``default`` (the arm's gains: :mod:`.gains` reads their velocity and effort
  bounds) and ``gripper``. A ``default`` file that does not exist (HEBI's A-2099-07G
  names one) is a located warning (code ``config-gains-missing``).
* ``user_data``: ``has_gripper`` (bool).

Everything else (``version``, ``families``, ``plugins``, the rest of ``user_data``) is for
HEBI's arm API and is kept as it is in the file.

Where the config lives decides what hebi_hardware is told: in a ROS package (the nearest
``package.xml`` above the file), ``config_pkg`` is that package's ``<name>`` and
``config_file`` the path from the package root (hebi_hardware reads
``<share of config_pkg>/<config_file>``, so the package must install the file at the same
relative path, as hebi_description does); for ``PKG:FILE`` they are ``PKG`` and
``FILE``. A config in no package has neither (:attr:`ArmConfig.in_package` is false).
"""
from __future__ import annotations

import os
import re
from dataclasses import dataclass
from typing import Dict, List, Optional, Tuple

import yaml

from .diagnostics import ERROR, WARNING, Diagnostic, HrdfError
from .gains import Gains, read_gains
from .sources import SourceError, package_of, package_share, read_document

#: Characters a joint name keeps (ROS names: letters, digits, ``_``, ``/``).
_DROPPED = re.compile(r'[^A-Za-z0-9_/]')
#: A usable joint name after sanitising (a URDF/TF name that starts with a letter or _).
_VALID = re.compile(r'[A-Za-z_][A-Za-z0-9_/]*')
#: Largest config file read, bytes.
MAX_CONFIG_BYTES = 1024 * 1024


@dataclass(frozen=True)
class ArmConfig:
    """A HEBI arm config, read (see the module docstring).

    Attributes:
        path: the config file, absolute.
        names: joint name per arm module, in joint order (sanitised).
        hrdf: the HRDF file, absolute, or ``None`` when the config names none.
        gains: the arm's gains bounds (:class:`~.gains.Gains`), or ``None`` when the
            config names no ``default`` gains or the file does not exist.
        gains_files: ``{'default' | 'gripper': absolute path}`` as the config names them.
        has_gripper: ``user_data.has_gripper``, or ``None`` when not given.
        config_pkg: the ROS package holding the config, or ``''``.
        config_file: its path from that package's root (``/``-separated), or ``''``.
        warnings: located warnings (sanitised names, a missing gains file).
    """

    path: str
    names: Tuple[str, ...]
    hrdf: Optional[str]
    gains: Optional[Gains]
    gains_files: Dict[str, str]
    has_gripper: Optional[bool]
    config_pkg: str
    config_file: str
    warnings: Tuple[Diagnostic, ...] = ()

    @property
    def in_package(self) -> bool:
        """True when the config is in a ROS package (hebi_hardware can be told where)."""
        return bool(self.config_pkg)

    @property
    def files(self) -> Dict[str, str]:
        """What the config needs beside it: ``{path relative to the config's folder:
        absolute path}`` of the config itself, its HRDF and its gains files that exist
        (to install a config that sits in no package with the robot's package)."""
        folder = os.path.dirname(self.path)
        out = {os.path.basename(self.path): self.path}
        for path in [self.hrdf] + list(self.gains_files.values()):
            if path and os.path.isfile(path):
                out[os.path.relpath(path, folder).replace(os.sep, '/')] = path
        return out


class _Reader:
    """The config's YAML with the location of every node, and its diagnostics."""

    def __init__(self, path: str, text: str, strict: bool):
        self.path, self.strict = path, strict
        self.items: List[Diagnostic] = []
        try:
            self.root = yaml.compose(text, Loader=yaml.SafeLoader)
        except yaml.YAMLError as exc:
            mark = getattr(exc, 'problem_mark', None)
            raise HrdfError([Diagnostic(
                ERROR, f'not YAML: {getattr(exc, "problem", None) or exc}', path,
                mark.line + 1 if mark else 0, mark.column + 1 if mark else 0)]) from None
        if not isinstance(self.root, yaml.MappingNode):
            self.fail(self.root, 'a HEBI arm config is a YAML mapping (names, hrdf, gains, '
                      '...)')

    def add(self, severity: str, node, message: str, code: Optional[str] = None) -> None:
        mark = node.start_mark if node is not None else None
        self.items.append(Diagnostic(severity, message, self.path,
                                     mark.line + 1 if mark else 0,
                                     mark.column + 1 if mark else 0, code=code))

    def fail(self, node, message: str):
        self.add(ERROR, node, message)
        raise HrdfError(self.items)

    def get(self, mapping, key: str):
        """The value node of ``key`` in a mapping node, or ``None``."""
        if not isinstance(mapping, yaml.MappingNode):
            return None
        return next((v for k, v in mapping.value if getattr(k, 'value', None) == key), None)

    def string(self, node, what: str) -> str:
        if not isinstance(node, yaml.ScalarNode) or node.tag != 'tag:yaml.org,2002:str':
            self.fail(node, f'{what} must be a string')
        return node.value


def _nearest_package(path: str) -> Tuple[str, str]:
    """(package name, path of ``path`` from the package root) of the nearest
    ``package.xml`` above ``path``, or ``('', '')``."""
    found = package_of(path)
    if found is None:
        return '', ''
    name, root = found
    return name, os.path.relpath(path, root).replace(os.sep, '/')


def resolve_config(spec: str) -> Tuple[str, str, str]:
    """Where a config named on the command line or in a parameter is.

    Args:
        spec: a file path, or ``PKG:FILE`` (``FILE`` in the share folder of the
            installed package ``PKG``; a path that exists as written is a path even if
            it contains ``:``).

    Returns:
        ``(absolute path, config_pkg, config_file)``; the last two are ``''`` for a
        config in no ROS package.

    Raises:
        HrdfError: ``PKG`` is not installed (not on ``AMENT_PREFIX_PATH``).
    """
    package, colon, relative = spec.partition(':')
    if colon and not os.path.exists(spec) and re.fullmatch(r'[A-Za-z][A-Za-z0-9_]*', package):
        share = package_share(package)
        if share is None:
            raise HrdfError([Diagnostic(
                ERROR, f'package "{package}" is not installed here (not found through the '
                'ament index on AMENT_PREFIX_PATH)', spec)])
        relative = relative.lstrip('/')
        return os.path.abspath(os.path.join(share, relative)), package, relative
    path = os.path.abspath(spec)
    return (path,) + _nearest_package(path)


def _names(reader: _Reader) -> Tuple[str, ...]:
    node = reader.get(reader.root, 'names')
    if node is None:
        reader.fail(reader.root, 'no "names": the arm\'s module names (the joint names)')
    if not isinstance(node, yaml.SequenceNode) or not node.value:
        reader.fail(node, '"names" must be a list of module names')
    out = []
    for k, item in enumerate(node.value):
        raw = reader.string(item, f'names[{k}]')
        name = _DROPPED.sub('', raw)
        if not _VALID.fullmatch(name):
            reader.fail(item, f'names[{k}] {raw!r} cannot be a joint name (letters, digits, '
                        '_ and /, starting with a letter or _)')
        if name != raw:
            dropped = ''.join(sorted(set(_DROPPED.findall(raw))))
            if reader.strict:
                reader.add(ERROR, item, f'names[{k}] {raw!r} is not a valid ROS name; an '
                           'error in strict mode', code='config-name')
            else:
                reader.add(WARNING, item, f'names[{k}] {raw!r} is not a valid ROS name: the '
                           f'joint is named {name!r} (dropped {dropped!r})',
                           code='config-name')
        if name in out:
            reader.fail(item, f'names[{k}] {name!r} is used twice')
        out.append(name)
    return tuple(out)


def _gains(reader: _Reader, folder: str) -> Tuple[Dict[str, str], Optional[Gains]]:
    node = reader.get(reader.root, 'gains')
    if node is None:
        return {}, None
    if not isinstance(node, yaml.MappingNode):
        reader.fail(node, '"gains" must be a mapping (default: FILE, gripper: FILE)')
    files = {}
    for key, value in node.value:
        files[str(key.value)] = os.path.normpath(os.path.join(
            folder, reader.string(value, f'gains.{key.value}')))
    default = files.get('default')
    if default is None:
        return files, None
    if not os.path.isfile(default):
        reader.add(WARNING, reader.get(node, 'default'), f'gains file {default} does not '
                   'exist: the modules\' rated velocity and effort are the limits',
                   code='config-gains-missing')
        return files, None
    try:
        return files, read_gains(default)
    except HrdfError as exc:
        reader.items.extend(exc.diagnostics)
        raise HrdfError(reader.items) from None


def read_arm_config(spec: str, strict: bool = False) -> ArmConfig:
    """Read a HEBI arm config.

    Args:
        spec: its path, or ``PKG:FILE`` (see :func:`resolve_config`).
        strict: a name that must be sanitised is an error, not a warning.

    Returns:
        The :class:`ArmConfig`; its ``warnings`` are located (file, line, column).

    Raises:
        HrdfError: with located diagnostics: the file cannot be read or is not YAML,
            ``names`` is missing or not a list of usable, distinct names, a key has the
            wrong type, the gains file is invalid, or (strict) a name needs sanitising.
    """
    path, config_pkg, config_file = resolve_config(spec)
    try:
        data = read_document(path)
        if len(data) > MAX_CONFIG_BYTES:
            raise SourceError(f'file larger than {MAX_CONFIG_BYTES} bytes')
        text = data.decode('utf-8')
    except SourceError as exc:
        raise HrdfError([Diagnostic(ERROR, str(exc), path)]) from None
    except UnicodeDecodeError:
        raise HrdfError([Diagnostic(ERROR, 'not UTF-8 text', path)]) from None
    reader = _Reader(path, text, strict)
    names = _names(reader)
    folder = os.path.dirname(path)
    hrdf_node = reader.get(reader.root, 'hrdf')
    hrdf = None if hrdf_node is None else os.path.normpath(
        os.path.join(folder, reader.string(hrdf_node, '"hrdf"')))
    gains_files, gains = _gains(reader, folder)
    has_gripper = None
    flag = reader.get(reader.get(reader.root, 'user_data'), 'has_gripper')
    if flag is not None:
        if not isinstance(flag, yaml.ScalarNode) or flag.tag != 'tag:yaml.org,2002:bool':
            reader.fail(flag, 'user_data.has_gripper must be true or false')
        has_gripper = yaml.safe_load(flag.value)
    if any(d.severity == ERROR for d in reader.items):
        raise HrdfError(reader.items)
    return ArmConfig(path, names, hrdf, gains, gains_files, has_gripper, config_pkg,
                     config_file, tuple(reader.items))


__all__ = ['ArmConfig', 'MAX_CONFIG_BYTES', 'read_arm_config', 'resolve_config']
