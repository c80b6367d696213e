#!/usr/bin/env python3
"""Print the interface packages under one or more directories in build order.

A directory holding a package.xml is a package; so is every immediate subdirectory of
one that holds a package.xml. The manifests
are parsed and validated with catkin_pkg. Packages are ordered so that each one
comes after the local packages it depends on; among packages that are ready at
the same time, tf2_msgs goes first and the rest follow alphabetically.

Output: one line per package, tab separated:
    <package dir>  <package name>  <comma separated local dependencies or ->
"""
import sys
from pathlib import Path

from catkin_pkg.package import parse_package

FIRST = 'tf2_msgs'


def main(argv):
    if len(argv) < 2:
        sys.stderr.write('usage: interfaces_build_order.py <dir> [<dir> ...]\n')
        return 2
    manifests = []
    for root in map(Path, argv[1:]):
        own = root / 'package.xml'
        manifests += [own] if own.is_file() else sorted(root.glob('*/package.xml'))
    packages = {}
    for manifest in manifests:
        pkg = parse_package(str(manifest))
        pkg.validate()
        if pkg.name in packages:
            sys.stderr.write('duplicate package name %s in %s\n' % (pkg.name, manifest.parent))
            return 1
        deps = {d.name for d in (pkg.build_depends + pkg.buildtool_depends
                                 + pkg.build_export_depends + pkg.exec_depends)}
        packages[pkg.name] = (manifest.parent, deps)

    local_deps = {name: sorted(deps & packages.keys() - {name})
                  for name, (_, deps) in packages.items()}
    ordered = []
    remaining = set(packages)
    while remaining:
        ready = [n for n in remaining if all(d in ordered for d in local_deps[n])]
        if not ready:
            sys.stderr.write('dependency cycle among: %s\n' % ', '.join(sorted(remaining)))
            return 1
        name = min(ready, key=lambda n: (n != FIRST, n))
        ordered.append(name)
        remaining.remove(name)

    for name in ordered:
        print('%s\t%s\t%s' % (packages[name][0], name, ','.join(local_deps[name]) or '-'))
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
