#!/usr/bin/env python3
"""Lay out a source folder that builds some of an interface package's interfaces.

    python scripts/interface_subset.py SOURCE_PACKAGE OUT_DIR action/X.action msg/Y.msg ...

OUT_DIR gets ``package.xml`` and the named interface files as symbolic links into
SOURCE_PACKAGE (nothing is copied), and a ``CMakeLists.txt`` that generates only those
interfaces with rosidl, with the dependencies the files name (``pkg/Type`` fields, read
from the files). The package keeps its name; its interfaces are the source's own, so
their type hashes are too. Files already as wanted are left alone (their times stay,
so scripts/setup_env.sh's stamps see nothing new). Exit 0, or 1 with one line.
"""
from __future__ import annotations

import os
import re
import sys

#: What every rosidl package finds besides the packages its fields name.
ALWAYS = ('ament_cmake', 'rosidl_default_generators')
#: The C++ generators left out with -DPYTHON_TYPESUPPORTS_ONLY=ON, as in interfaces/.
PYTHON_ONLY = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                           'interfaces', 'cmake', 'python_typesupports_only.cmake')
#: A field type from another package: ``pkg/Type`` (optionally an array).
FOREIGN = re.compile(r'^\s*([a-z][a-z0-9_]*)/[A-Z]\w*(?:\[[^\]]*\])?\s+\w', re.M)


def cmake_lists(name: str, files, dependencies) -> str:
    """The CMakeLists.txt text (CMake is not a data format a library writes)."""
    finds = ''.join(f'find_package({d} REQUIRED)\n' for d in (*ALWAYS, *dependencies))
    listed = ''.join(f'  {f}\n' for f in files)
    depends = ''.join(f'    {d}\n' for d in dependencies)
    return (f'cmake_minimum_required(VERSION 3.10)\nproject({name})\n\n{finds}\n'
            f'include("{PYTHON_ONLY}")\n\n'
            f'rosidl_generate_interfaces(${{PROJECT_NAME}}\n{listed}'
            + (f'  DEPENDENCIES\n{depends}' if dependencies else '')
            + ')\n\nament_export_dependencies(rosidl_default_runtime)\nament_package()\n')


def link(target: str, path: str) -> None:
    """A symbolic link ``path`` -> ``target``, unless it is one already."""
    if os.path.islink(path) and os.readlink(path) == target:
        return
    if os.path.lexists(path):
        os.remove(path)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    os.symlink(target, path)


def main(argv) -> int:
    if len(argv) < 3:
        print('usage: interface_subset.py SOURCE_PACKAGE OUT_DIR FILE...', file=sys.stderr)
        return 1
    source, out, files = os.path.abspath(argv[0]), os.path.abspath(argv[1]), argv[2:]
    name = os.path.basename(source)
    dependencies = set()
    for relative in files:
        path = os.path.join(source, relative)
        if not os.path.isfile(path):
            print(f'interface_subset.py: no {path}', file=sys.stderr)
            return 1
        with open(path, encoding='utf-8') as handle:
            dependencies |= {pkg for pkg in FOREIGN.findall(handle.read()) if pkg != name}
        link(path, os.path.join(out, relative))
    if any(f.endswith('.action') for f in files):
        dependencies.add('action_msgs')
    link(os.path.join(source, 'package.xml'), os.path.join(out, 'package.xml'))
    text = cmake_lists(name, files, sorted(dependencies))
    target = os.path.join(out, 'CMakeLists.txt')
    if not os.path.isfile(target) or open(target, encoding='utf-8').read() != text:
        with open(target, 'w', encoding='utf-8') as handle:
            handle.write(text)
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
