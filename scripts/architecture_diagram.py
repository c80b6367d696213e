#!/usr/bin/env python3
"""The layer diagram of the documentation (doc/images/architecture.png).

Usage (from the repository root; matplotlib comes with `make docs-env`, from
scripts/requirements-docs.txt):
    .venv/bin/python scripts/architecture_diagram.py          # doc/images/architecture.png
    .venv/bin/python scripts/architecture_diagram.py -o out.png

The package's layers, lowest first, as test/test_layers.py enforces them (a layer imports
only the layers below it; test_docs.py checks LAYERS is that test's list): what each
does, and the packages from outside the standard library its modules import, read from
the source (doc/explanation/architecture.md).
"""
from __future__ import annotations

import ast
import os
import sys

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(REPO, 'scripts'))
from doc_picture import picture_main  # noqa: E402  (scripts/doc_picture.py)

#: (layer as test_layers.py names it, where it is, what it does)
LAYERS = [
    ('model', 'model.py ...', 'RobotModel, Element: the resolved robot\nas plain data; '
     'the cache folder; reproducible arithmetic,\nnumbers as written'),
    ('hrdf', 'hrdf/', 'HRDF file in, RobotModel out (and back):\ngrammar, includes, '
     'versions, diagnostics'),
    ('kinematics', 'kinematics/', 'frames, Jacobians, masses, gravity\ntorques: one '
     'configuration or batches'),
    ('parts', 'parts/', "HEBI's part catalogue as drawn: meshes,\ncolours, fitted "
     'collision shapes, mesh files'),
    ('description', 'description/', 'the robot every output sees: names,\nlimits, '
     'inertials, shapes, semantics'),
    ('motion', 'motion/', 'planning scene, collision-free IK, joint\nand Cartesian '
     'motions, timed trajectories'),
    ('servo', 'servo/', 'live steering: twists, joint jogs, poses\nin, the next joint '
     'positions out, slowing first'),
    ('reach', 'reach/', 'where an arm reaches, in which tool\ndirections, and the '
     'payload it holds there'),
    ('export', 'export/', 'the writers: URDF, xacro, SDFormat, MJCF,\nros2_control, '
     'MoveIt package'),
    ('design', 'design/', 'from a job (targets, payload) to the\nlightest HEBI arm: the task'),
    ('view', 'view/', 'the robot in the browser: sliders,\nframes, live reload'),
    ('ros', 'ros/', 'hrdf_ros_node (robot_description, TF,\nservices), hrdf_ros_web_view'),
    ('top', 'cli/ demo.py ...', 'the hrdf command line, the demo,\nthe console programs'),
]
#: ROS 2 interface packages, shown as one name
ROS_MESSAGES = {'std_msgs', 'sensor_msgs', 'geometry_msgs', 'tf2_msgs', 'rcl_interfaces',
                'builtin_interfaces', 'hrdf_ros_interfaces'}


def outside_imports() -> dict:
    """Layer -> sorted top-level packages outside the standard library and hrdf_ros that
    its modules import (anywhere in a module, also inside functions, and through the
    motion extra's ``require('module')``)."""
    found = {name: set() for name, _, _ in LAYERS}
    package = os.path.join(REPO, 'hrdf_ros')
    for folder, _, files in os.walk(package):
        for file in files:
            if not file.endswith('.py'):
                continue
            relative = os.path.relpath(os.path.join(folder, file), package)
            first = relative.split(os.sep)[0]
            layer = 'model' if first in ('model.py', 'cache_dir.py', 'reproducible.py',
                                          'numbers.py') else (
                first if first in found else 'top')
            tree = ast.parse(open(os.path.join(folder, file), encoding='utf-8').read())
            for node in ast.walk(tree):
                if isinstance(node, ast.Import):
                    names = [alias.name for alias in node.names]
                elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
                    names = [node.module]
                elif isinstance(node, ast.Call) and getattr(node.func, 'id', '') == 'require' \
                        and node.args and isinstance(node.args[0], ast.Constant):
                    names = [node.args[0].value]      # motion/requirements.py: on first use
                else:
                    continue
                for name in names:
                    top = name.split('.')[0]
                    if top in sys.stdlib_module_names or top in ('hrdf_ros', '__future__'):
                        continue
                    found[layer].add('ROS messages' if top in ROS_MESSAGES else top)
    return {layer: sorted(names, key=str.lower) for layer, names in found.items()}


#: One fill per layer, lowest first.
COLOURS = ['#f1efe9', '#fde4e1', '#fbd3cd', '#f6e3c8', '#efe9d2', '#f3e6d8', '#e6f0e8', '#e9e4f3',
           '#f0e4ee', '#dbe8f4', '#e3efdf', '#e8eef0', '#e4f1f0']


def draw():
    """The picture as a matplotlib figure (saved by scripts/doc_picture.py)."""
    import matplotlib.pyplot as plt
    from matplotlib.patches import FancyArrowPatch, FancyBboxPatch

    imports = outside_imports()
    assert len(COLOURS) >= len(LAYERS)
    fig, ax = plt.subplots(figsize=(9.0, 0.72 * len(LAYERS) + 1.2), dpi=110)
    height, gap = 0.105, 0.025
    for level, ((name, folder, what), colour) in enumerate(zip(LAYERS, COLOURS)):
        outside = imports[name]
        y = 0.05 + level * (height + gap)
        ax.add_patch(FancyBboxPatch((0.03, y), 0.94, height, boxstyle='round,pad=0.004',
                                    fc=colour, ec='#8a8a8a', lw=0.8))
        ax.text(0.05, y + height / 2, folder, fontsize=10.5, fontweight='bold',
                va='center', family='monospace')
        ax.text(0.25, y + height / 2, what, fontsize=9, va='center')
        if outside:
            half = (len(outside) + 1) // 2
            ax.text(0.95, y + height / 2, ', '.join(outside[:half]) + ',\n'
                    + ', '.join(outside[half:]) if len(outside) > 2 else ', '.join(outside),
                    fontsize=8.5, va='center', ha='right', color='#444444', style='italic')
        if level:
            ax.add_patch(FancyArrowPatch((0.2, y), (0.2, y - gap), arrowstyle='-|>',
                                         mutation_scale=9, color='#555555', lw=0.9))
    top = 0.05 + len(LAYERS) * (height + gap)
    ax.text(0.03, top, 'Each layer imports only the layers below it (test/test_layers.py).',
            fontsize=8.5, color='#333333')
    ax.text(0.95, top, 'packages from outside it imports', fontsize=8.5, ha='right',
            color='#444444', style='italic')
    ax.set_xlim(0, 1)
    ax.set_ylim(0, top + 0.05)
    return fig


def main(argv=None) -> int:
    return picture_main(draw, 'architecture.png', __doc__.splitlines()[0], argv)


if __name__ == '__main__':
    sys.exit(main())
