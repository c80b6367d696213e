#!/usr/bin/env python3
"""Render a robot's URDF visual geometry at one configuration to a PNG (matplotlib).

Usage (from the repository root; matplotlib comes with make env):
    python scripts/render_robot.py config/x_series_arm_6dof.hrdf \\
        --positions "0.3 0.9 1.6 -0.4 0.8 0" -o docs/x_series_arm.png
    python scripts/render_robot.py robot.urdf --positions "..." -o robot.png

INPUT is a URDF file, or an HRDF file (``.hrdf``), which is turned into its URDF with
``hrdf_ros.to_urdf(..., meshes='primitives')`` (HEBI's parts as their fitted collision
shapes, in HEBI's colours). Positions (rad, m for prismatic joints) are HEBI joint positions
in HEBI order for an HRDF file, and URDF joint values in URDF document order for a URDF;
missing means all zero. Link poses come from yourdfpy, the independent URDF library the
tests use.

Drawn: ``box``, ``cylinder`` and ``sphere`` visuals, in the visual's material colour or a
colour per link. ``mesh`` visuals are skipped (noted on the picture and on stderr). When
the URDF has no visual geometry at all, every link origin is drawn as a ball and every
joint as a thick segment from its parent link's origin to its child link's origin, so the
picture still shows the robot's shape. Axes are metres, in the URDF root link's frame.
"""
from __future__ import annotations

import argparse
import io
import os
import sys
import textwrap
from typing import Dict, List, Optional, Sequence

import numpy as np

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

#: Colours for links without a material (matplotlib's tab10, cycled).
PALETTE = ['#4c72b0', '#dd8452', '#55a868', '#c44e52', '#8172b3', '#937860', '#da8bc3',
           '#8c8c8c', '#ccb974', '#64b5cd']
#: Ball radius (m) and segment width (points) of the no-visuals skeleton.
SKELETON_BALL = 0.02
SKELETON_WIDTH = 6.0
#: Length (m) of the x/y/z axes drawn at the root link and at every leaf link.
TRIAD_LENGTH = 0.06


def load_urdf(urdf_text: str):
    """yourdfpy model of URDF text (no files, meshes not loaded)."""
    import yourdfpy

    return yourdfpy.URDF.load(io.BytesIO(urdf_text.encode('utf-8')), build_scene_graph=True,
                              load_meshes=False, build_collision_scene_graph=False,
                              load_collision_meshes=False)


def _surface(ax, points: np.ndarray, pose: np.ndarray, color) -> np.ndarray:
    """Plot a (u, v, 3) grid of link-frame points moved by ``pose``; returns them."""
    world = points @ pose[:3, :3].T + pose[:3, 3]
    ax.plot_surface(world[..., 0], world[..., 1], world[..., 2], color=color,
                    linewidth=0, antialiased=True, shade=True)
    return world.reshape(-1, 3)


def _box(ax, size, pose, color) -> np.ndarray:
    from mpl_toolkits.mplot3d.art3d import Poly3DCollection

    half = np.asarray(size, dtype=float) / 2
    corners = np.array([[x, y, z] for x in (-1, 1) for y in (-1, 1) for z in (-1, 1)]) * half
    world = corners @ pose[:3, :3].T + pose[:3, 3]
    faces = [[0, 1, 3, 2], [4, 5, 7, 6], [0, 1, 5, 4], [2, 3, 7, 6], [0, 2, 6, 4],
             [1, 3, 7, 5]]
    ax.add_collection3d(Poly3DCollection([world[f] for f in faces], facecolors=color,
                                         edgecolors='#222222', linewidths=0.3, alpha=1.0))
    return world


def _cylinder(ax, radius, length, pose, color) -> np.ndarray:
    angle = np.linspace(0, 2 * np.pi, 24)
    z = np.array([-length / 2, length / 2])
    side = np.stack([radius * np.cos(angle)[None, :].repeat(2, 0),
                     radius * np.sin(angle)[None, :].repeat(2, 0),
                     z[:, None].repeat(len(angle), 1)], axis=-1)
    points = [_surface(ax, side, pose, color)]
    for end in z:   # end caps: a disc of radii 0..radius
        r = np.array([0.0, radius])[:, None]
        cap = np.stack([r * np.cos(angle), r * np.sin(angle),
                        np.full((2, len(angle)), end)], axis=-1)
        points.append(_surface(ax, cap, pose, color))
    return np.concatenate(points)


def _sphere(ax, radius, pose, color) -> np.ndarray:
    u, v = np.meshgrid(np.linspace(0, 2 * np.pi, 20), np.linspace(0, np.pi, 12))
    grid = radius * np.stack([np.cos(u) * np.sin(v), np.sin(u) * np.sin(v), np.cos(v)], -1)
    return _surface(ax, grid, pose, color)


def _color(visual, default: str):
    material = getattr(visual, 'material', None)
    color = getattr(material, 'color', None) if material is not None else None
    rgba = getattr(color, 'rgba', None) if color is not None else None
    return tuple(float(c) for c in rgba) if rgba is not None else default


def draw(ax, robot) -> Dict[str, int]:
    """Draw the robot's visuals (or its skeleton) at its current configuration.

    Returns:
        counts: ``box``, ``cylinder``, ``sphere`` (drawn), ``mesh`` (skipped),
        ``skeleton_links`` and ``skeleton_joints`` (drawn when there are no visuals),
        the bounds of everything drawn under ``points`` (an (n, 3) array) and, under
        ``labels``, (leaf link, position) pairs to label once the view is set. The root
        link and every leaf link (e.g. end effectors) also get x/y/z axes
        (red/green/blue).
    """
    root = robot.base_link
    counts = {'box': 0, 'cylinder': 0, 'sphere': 0, 'mesh': 0,
              'skeleton_links': 0, 'skeleton_joints': 0}
    points: List[np.ndarray] = []
    poses = {name: robot.get_transform(name, root) for name in robot.link_map}
    visuals = [(name, v) for name, link in robot.link_map.items() for v in link.visuals]
    for k, (name, visual) in enumerate(visuals):
        color = _color(visual, PALETTE[list(robot.link_map).index(name) % len(PALETTE)])
        pose = poses[name] @ (np.eye(4) if visual.origin is None else visual.origin)
        geometry = visual.geometry
        if geometry.box is not None:
            points.append(_box(ax, geometry.box.size, pose, color))
            counts['box'] += 1
        elif geometry.cylinder is not None:
            points.append(_cylinder(ax, geometry.cylinder.radius, geometry.cylinder.length,
                                    pose, color))
            counts['cylinder'] += 1
        elif geometry.sphere is not None:
            points.append(_sphere(ax, geometry.sphere.radius, pose, color))
            counts['sphere'] += 1
        elif geometry.mesh is not None:
            counts['mesh'] += 1
    if not visuals:
        for joint in robot.robot.joints:
            start, end = poses[joint.parent][:3, 3], poses[joint.child][:3, 3]
            if np.linalg.norm(end - start) > 1e-9:
                ax.plot(*np.stack([start, end]).T, color='#555555',
                        linewidth=SKELETON_WIDTH, solid_capstyle='round')
                counts['skeleton_joints'] += 1
        for k, (name, pose) in enumerate(poses.items()):
            points.append(_sphere(ax, SKELETON_BALL, pose, PALETTE[k % len(PALETTE)]))
            counts['skeleton_links'] += 1
    leaves = set(robot.link_map) - {j.parent for j in robot.robot.joints}
    for name in [root] + sorted(leaves):
        origin = poses[name][:3, 3]
        for axis, color in zip(poses[name][:3, :3].T, ('#d62728', '#2ca02c', '#1f77b4')):
            ax.plot(*np.stack([origin, origin + TRIAD_LENGTH * axis]).T, color=color,
                    linewidth=2)
        if name != root:
            counts.setdefault('labels', []).append((name, origin))
    for pose in poses.values():
        points.append(pose[:3, 3][None])
    counts['points'] = np.concatenate(points)
    return counts


def _equal_axes(ax, points: np.ndarray) -> None:
    low, high = points.min(axis=0), points.max(axis=0)
    center, half = (low + high) / 2, max(float((high - low).max()) / 2, 0.05) * 1.1
    ax.set_xlim(center[0] - half, center[0] + half)
    ax.set_ylim(center[1] - half, center[1] + half)
    ax.set_zlim(center[2] - half, center[2] + half)
    ax.set_box_aspect((1, 1, 1))


def _label(ax, labels) -> None:
    """Name points in 2D, above every 3D artist (3D text can be hidden by surfaces)."""
    from mpl_toolkits.mplot3d import proj3d

    for name, (x, y, z) in labels:
        u, v, _ = proj3d.proj_transform(x, y, z, ax.get_proj())
        ax.annotate(name, (u, v), xytext=(8, 8), textcoords='offset points', fontsize=8,
                    zorder=100, bbox={'boxstyle': 'round,pad=0.2', 'fc': 'white',
                                      'ec': '#999999', 'alpha': 0.85})


def render(urdf_text: str, out: str, configuration: Optional[Dict[str, float]] = None,
           title: Optional[str] = None) -> Dict[str, int]:
    """Render URDF text at ``configuration`` ({URDF joint: value}; missing joints 0) to
    the PNG ``out``. Returns :func:`draw`'s counts (without the points)."""
    import matplotlib

    matplotlib.use('Agg')
    import matplotlib.pyplot as plt

    robot = load_urdf(urdf_text)
    robot.update_cfg({name: float((configuration or {}).get(name, 0.0))
                      for name in robot.actuated_joint_names})
    figure = plt.figure(figsize=(7, 6.5), dpi=120)
    ax = figure.add_subplot(projection='3d')
    counts = draw(ax, robot)
    _equal_axes(ax, counts.pop('points'))
    ax.view_init(elev=22, azim=-55)
    _label(ax, counts.pop('labels', []))
    ax.set_xlabel('x (m)')
    ax.set_ylabel('y (m)')
    ax.set_zlabel('z (m)')
    ax.set_title(textwrap.fill(title or robot.robot.name, 70))
    notes = []
    if counts['mesh']:
        notes.append(f'{counts["mesh"]} mesh visual(s) not drawn')
    if counts['skeleton_links']:
        notes.append('no visual geometry in the URDF: links as balls, joints as segments')
    if notes:
        figure.text(0.02, 0.02, '; '.join(notes), fontsize=8, color='#555555')
        for note in notes:
            print(f'render_robot: {note}', file=sys.stderr)
    os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)
    figure.savefig(out, metadata={'Software': None})
    plt.close(figure)
    return counts


def _hrdf_urdf(path: str, positions: Sequence[float]):
    """URDF text and {URDF joint: value} of an HRDF file at HEBI positions.

    Raises:
        ValueError: for an invalid HRDF file or the wrong number of positions.
    """
    if REPO not in sys.path:
        sys.path.insert(0, REPO)
    from hrdf_ros import HrdfError, load, to_urdf
    from hrdf_ros.export.frame_tree import build_frame_tree

    try:
        model = load(path)
    except HrdfError as exc:
        raise ValueError(str(exc)) from None
    tree = build_frame_tree(model)
    q = list(positions) or [0.0] * model.dof_count
    if len(q) != model.dof_count:
        raise ValueError(f'{len(q)} positions for {model.dof_count} DoF')
    values = {name: q[k] / model.elements[e].gear_ratio
              for k, (name, e) in enumerate(zip(tree.dof_names, model.dof_elements))}
    name = os.path.splitext(os.path.basename(path))[0]
    # matplotlib draws primitives only: HEBI's parts as their fitted shapes, coloured
    return to_urdf(model, name, tree=tree, meshes='primitives'), values


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('input', help='URDF file, or HRDF file (.hrdf)')
    parser.add_argument('-o', '--output', required=True, help='PNG to write')
    parser.add_argument('--positions', default='',
                        help='joint positions "q1 q2 ..." (rad / m); default zeros')
    parser.add_argument('--title', help='figure title (default: robot name and positions)')
    args = parser.parse_args(argv)
    try:
        positions = [float(v) for v in args.positions.replace(',', ' ').split()]
    except ValueError:
        parser.error(f'--positions must be numbers, got "{args.positions}"')
    try:
        if args.input.lower().endswith('.hrdf'):
            urdf_text, values = _hrdf_urdf(args.input, positions)
        else:
            with open(args.input, encoding='utf-8') as handle:
                urdf_text = handle.read()
            names = load_urdf(urdf_text).actuated_joint_names
            if positions and len(positions) != len(names):
                raise ValueError(f'{len(positions)} positions for {len(names)} joints')
            values = dict(zip(names, positions))
    except (OSError, ValueError) as exc:
        print(f'render_robot: error: {exc}', file=sys.stderr)
        return 1
    shown = ', '.join(f'{v:g}' for v in positions) if positions else 'zeros'
    title = args.title or f'{os.path.splitext(os.path.basename(args.input))[0]}, q = [{shown}]'
    counts = render(urdf_text, args.output, values, title)
    print(f'{args.output}: ' + ', '.join(f'{k} {v}' for k, v in counts.items() if v))
    return 0


if __name__ == '__main__':
    sys.exit(main())
