"""A colcon workspace of generated MoveIt config packages, as the MoveIt package tests use
it: every package in ``ROOT/src``, one package of each build shape built by colcon.

What CMake sees of a generated package is its ``CMakeLists.txt``, its ``package.xml`` and
the folders it installs whole; packages made by the same generator differ there only in
their names (and package.xml's description). Their build shape (:func:`build_shape`) is
those files with the names taken out, plus the package's top-level entries: two
packages of one shape configure, build and install alike. ``colcon build`` runs on the
first and the last package of each shape (configuring ament_cmake costs ~1.5 s of CPU a
package: 72 packages took 100 s of a loaded CI run). The others are shown where an
ament prefix shows a package, in a prefix of their own (``ROOT/linked``): its ament
index entry and ``share/<name>`` linking to the package's folder, as ``colcon build
--symlink-install`` installs data files (that share also holds CMakeLists.txt and
launch/setup_assistant.launch, which the install leaves out and MoveIt does not read).
"""
import os
import re
from pathlib import Path
from typing import Callable, Dict, List, Tuple


def build_shape(folder: Path) -> Tuple:
    """What colcon and CMake see of the package in ``folder``, its names taken out."""
    xml = (folder / 'package.xml').read_text(encoding='utf-8')
    name = re.search(r'<name>\s*([^<\s]+)\s*</name>', xml).group(1)
    cmake = (folder / 'CMakeLists.txt').read_text(encoding='utf-8').replace(name, 'NAME')
    xml = re.sub(r'<description>.*?</description>', '', xml, flags=re.S).replace(name, 'NAME')
    return cmake, xml, tuple(sorted(os.listdir(folder)))


def build(root: Path, colcon_build: Callable[[Path, List[str]], None]) -> Dict[str, Path]:
    """Build one workspace (:mod:`moveit_workspace`); returns {package name: its share
    folder}, ``ROOT/install/share/<name>`` for the packages colcon built."""
    shapes: Dict[Tuple, List[str]] = {}
    for name in sorted(os.listdir(root / 'src')):
        shapes.setdefault(build_shape(root / 'src' / name), []).append(name)
    built = sorted({names[0] for names in shapes.values()}
                   | {names[-1] for names in shapes.values()})
    colcon_build(root, built)
    shares = {name: root / 'install' / 'share' / name for name in built}
    index = root / 'linked' / 'share' / 'ament_index' / 'resource_index' / 'packages'
    index.mkdir(parents=True)
    for names in shapes.values():
        for name in names:
            if name not in shares:
                (index / name).touch()
                shares[name] = root / 'linked' / 'share' / name
                shares[name].symlink_to(root / 'src' / name, target_is_directory=True)
    return shares


def built(shares: Dict[str, Path]) -> List[str]:
    """The names of the packages colcon built."""
    return sorted(n for n, share in shares.items() if share.parent.parent.name == 'install')


def prefixes(root: Path) -> List[str]:
    """The workspace's ament prefixes: colcon's install, then the linked packages."""
    return [str(root / 'install'), str(root / 'linked')]
