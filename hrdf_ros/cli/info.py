"""``hrdf info``: a robot's summary and its element tree, as text or JSON.

In: parsed arguments (a file, ``--json``). Out: version, DoF and joint names, frame
counts, total mass (kg), the URDF's physical fill, the kinematics path in use (numpy or
numba, :mod:`hrdf_ros.kinematics.backend`), and the element tree (one chain per
output of a branching element), on stdout.
"""
from __future__ import annotations

import json

from ..description.frame_tree import build_frame_tree
from ..description.inertials import fill_summary, link_inertials
from ..kinematics import FRAME_TYPES, backend
from .common import EXIT_OK, load_or_report


def element_tree(model, tree) -> list:
    """The robot's shape as nested chains, mirroring HRDF's own nesting.

    Returns the root chain: a list of element dicts (``index``, ``kind``, ``type``,
    ``tag``, ``link``, ``joint`` (DoF name or ``None``), ``mass`` kg, ``file``, ``line``).
    An element with one output continues its chain with the element mounted on it; an
    element with several outputs ends its chain and gets ``outputs``: one chain per
    output (empty when nothing is mounted there). Built without recursion.
    """
    mounted = {(e.parent, e.parent_output): i for i, e in enumerate(model.elements)}
    joint_of = {e: tree.dof_names[k] for k, e in enumerate(model.dof_elements)}
    roots: list = []
    work = [(mounted.get((-1, 0)), roots)]
    while work:
        index, chain = work.pop()
        while index is not None:
            e = model.elements[index]
            node = {'index': index, 'kind': e.kind, 'type': e.type, 'tag': e.tag,
                    'link': tree.element_links[index], 'joint': joint_of.get(index),
                    'mass': e.mass, 'file': e.path or None, 'line': e.line}
            chain.append(node)
            if len(e.outputs) == 1:
                index = mounted.get((index, 0))
                continue
            node['outputs'] = [[] for _ in e.outputs]
            work.extend((mounted.get((index, k)), node['outputs'][k])
                        for k in reversed(range(len(e.outputs))))
            index = None
    return roots


def print_tree(chain: list) -> None:
    """Print :func:`element_tree` indented by branch level (no recursion)."""
    work = [('chain', chain, 1)]
    while work:
        what, item, depth = work.pop()
        if what == 'text':
            print('  ' * depth + item)
            continue
        for n, node in enumerate(item):
            joint = f' [{node["joint"]}]' if node['joint'] else ''
            print(f'{"  " * depth}[{node["index"]}] {node["kind"]} {node["type"] or ""}'
                  f'{joint} {node["mass"]:.6g} kg -> {node["link"]}')
            if 'outputs' in node:  # a branch point ends its chain
                for k in reversed(range(len(node['outputs']))):
                    work.append(('chain', node['outputs'][k], depth + 2))
                    work.append(('text', f'output {k + 1}:', depth + 1))
                break


def cmd_info(args) -> int:
    """``hrdf info``: the summary and element tree of one file (text or ``--json``)."""
    model, code = load_or_report(args)
    if model is None:
        return code
    tree = build_frame_tree(model)
    fill = fill_summary(link_inertials(model, tree))
    info = {
        'file': args.file,
        'version': '.'.join(map(str, model.version)),
        'description': model.description,
        'dof': model.dof_count,
        'joint_names': tree.dof_names,
        'frame_counts': {t: model.frame_count(t) for t in FRAME_TYPES},
        'total_mass': model.total_mass,
        'urdf_fill': fill,
        'elements': [{'index': i, 'kind': e.kind, 'type': e.type, 'tag': e.tag,
                      'parent': e.parent, 'parent_output': e.parent_output,
                      'mass': e.mass, 'link': tree.element_links[i],
                      'implicit': e.implicit}
                     for i, e in enumerate(model.elements)],
        'tree': element_tree(model, tree),
        'kinematics': backend.resolve(),
    }
    if args.json:
        print(json.dumps(info))
    else:
        joints = f' ({", ".join(tree.dof_names)})' if tree.dof_names else ''
        print(f'{args.file}: HRDF {info["version"]}, {model.dof_count} DoF{joints}, '
              f'total mass {model.total_mass:.6g} kg')
        print('frames: ' + ', '.join(f'{k} {v}' for k, v in info['frame_counts'].items()))
        added = sum(f['added_mass'] for f in fill)
        print(f'URDF physical fill: {len(fill)} link(s)' + (
            f' ({", ".join(f["link"] for f in fill)}), +{added:.3g} kg' if fill else '')
            + ' (hrdf_ros.description.inertials; hrdf urdf --exact-masses writes HEBI\'s masses)')
        print(backend.describe(info['kinematics']))
        print_tree(info['tree'])
    return EXIT_OK
