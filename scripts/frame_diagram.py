#!/usr/bin/env python3
"""The frame diagram of the documentation (doc/images/frames.png).

Usage (from the repository root; matplotlib comes with `make docs-env`, from
scripts/requirements-docs.txt):
    .venv/bin/python scripts/frame_diagram.py                 # writes doc/images/frames.png
    .venv/bin/python scripts/frame_diagram.py -o out.png

A small 3-DoF arm (X8-9, a heavy bracket, X8-16, a 0.3 m link, X5-1, a custom end
effector), written here as HRDF, posed by hrdf_ros's own kinematics at q = 0.5 0.7 0.9:
every element's input and output frame as an axis triad (x red, y green, z blue, as in
RViz), each joint axis (+z of the actuator's frames), the COM of each element, and the
URDF link names those frames become (doc/explanation/conventions.md). Nothing is drawn
by hand: moving a frame in the kinematics moves it in the picture.
"""
from __future__ import annotations

import os
import sys

import numpy as np

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(REPO, 'scripts'))
from doc_picture import picture_main  # noqa: E402  (scripts/doc_picture.py)
sys.path.insert(0, REPO)

HRDF = """<robot version="1.2.0" trans="0 0 0.1">
  <actuator type="X8-9"/>
  <bracket type="X5HeavyRightOutside"/>
  <actuator type="X8-16"/>
  <link type="X5" extension="0.3" twist="pi"/>
  <actuator type="X5-1"/>
  <end-effector type="Custom" mass="0.1" com_trans="0 0 0.05" output_trans="0 0 0.12"/>
</robot>
"""
POSITIONS = [0.0, 0.6, -1.3]
#: colours of the element kinds (HEBI's: X actuators red; brackets, links grey)
BODY = {'actuator': '#c8102e', 'bracket': '#9a9a9a', 'link': '#6f6f6f',
        'end-effector': '#3a3a3a'}
AXES = ('#d62728', '#2ca02c', '#1f77b4')          # x, y, z
TRIAD = 0.045                                      # m, length of a frame's axes


def frames():
    """The model and its frames at POSITIONS (hrdf_ros's forward kinematics)."""
    import hrdf_ros
    model = hrdf_ros.loads(HRDF, path='frame_diagram.hrdf')
    return model, hrdf_ros.Kinematics(model).forward_kinematics(POSITIONS)


def triad(ax, pose, length=TRIAD, width=1.6):
    origin = pose[:3, 3]
    for axis in range(3):
        tip = origin + length * pose[:3, axis]
        ax.plot(*zip(origin, tip), color=AXES[axis], linewidth=width, solid_capstyle='round')


def label(ax, point, text, offset, **style):
    """Text at ``point + offset`` with a thin leader line back to the point."""
    at = np.asarray(point) + np.asarray(offset)
    ax.plot(*zip(point, at), color='#555555', linewidth=0.6)
    ax.text(*at, text, fontsize=8.5, ha=style.pop('ha', 'left'), va='center',
            bbox=dict(boxstyle='round,pad=0.25', fc='white', ec='#bbbbbb', lw=0.5), **style)


def draw():
    """The picture as a matplotlib figure (saved by scripts/doc_picture.py)."""
    import matplotlib.pyplot as plt

    model, f = frames()
    kinds = [element.kind for element in model.elements]
    inputs, outputs, coms = f['input'], f['output'], f['com']
    fig = plt.figure(figsize=(9.0, 6.6), dpi=110)
    ax = fig.add_subplot(projection='3d', proj_type='ortho')
    ax.view_init(elev=16, azim=-64)

    # the floor: a grid around base_link
    for v in np.linspace(-0.1, 0.3, 9):
        ax.plot([v, v], [-0.2, 0.2], [0, 0], color='#e4e4e4', linewidth=0.6)
        ax.plot([-0.1, 0.3], [v - 0.1, v - 0.1], [0, 0], color='#e4e4e4', linewidth=0.6)

    # element bodies, input to output; the fixed joint base_link -> first element
    ax.plot(*zip([0, 0, 0], inputs[0][:3, 3]), color='#777777', linestyle=':', linewidth=1.2)
    for i, kind in enumerate(kinds):
        ax.plot(*zip(inputs[i][:3, 3], outputs[i][:3, 3]), color=BODY[kind], linewidth=7,
                alpha=0.35, solid_capstyle='round')
        ax.scatter(*coms[i][:3, 3], color=BODY[kind], s=14, marker='o', depthshade=False)

    # joint axes: +z of each actuator (input and output frames share it)
    for i, kind in enumerate(kinds):
        if kind == 'actuator':
            origin, z = outputs[i][:3, 3], outputs[i][:3, 2]
            ax.plot(*zip(origin - 0.07 * z, origin + 0.09 * z), color=AXES[2],
                    linestyle='--', linewidth=1.0)

    triad(ax, np.eye(4), length=0.07, width=2.4)
    for pose in list(inputs) + list(outputs):
        triad(ax, pose)

    joints = [i for i, kind in enumerate(kinds) if kind == 'actuator']
    link = kinds.index('link')
    at = {name: pose[:3, 3] for name, pose in (
        ('in1', inputs[0]), ('out1', outputs[0]), ('out2', outputs[joints[1]]),
        ('link_out', outputs[link]), ('link_com', coms[link]), ('ee', f['end_effector'][0]))}
    axis1 = outputs[joints[0]][:3, 3] + 0.09 * outputs[joints[0]][:3, 2]
    axis2 = outputs[joints[1]][:3, 3] - 0.07 * outputs[joints[1]][:3, 2]
    label(ax, [0, 0, 0], 'base_link: the reference frame', (0.0, -0.17, 0.0), ha='right')
    label(ax, at['in1'], 'actuator1 input = URDF link actuator1\n(fixed joint from base_link:\n'
          'HRDF <robot rot trans>)', (0.0, -0.12, 0.03), ha='right')
    label(ax, axis1, 'J1: continuous, about +z\nof actuator1', (0.0, -0.16, 0.08), ha='right')
    label(ax, at['out1'], 'actuator1 output = bracket1 input\n(URDF link bracket1)',
          (0.13, 0.0, -0.05))
    label(ax, axis2, 'J2: about +z of actuator2,\nwhose output is link1 input', (-0.04, 0.0, 0.14),
          ha='right')
    label(ax, at['link_com'], 'COM frame of link1', (0.12, 0.0, -0.09))
    label(ax, at['link_out'], 'link1 output = actuator3 input', (0.03, 0.0, 0.1))
    label(ax, at['ee'], 'end_effector: the end\neffector element\'s output', (0.06, 0.0, -0.1))
    ax.text2D(0.01, 0.02, 'x red, y green, z blue.  Frames from hrdf_ros\'s kinematics at '
              f'q = {" ".join(map(str, POSITIONS))} rad; units m.\nEvery element: an input '
              'frame (its URDF link), a COM frame, output frames. Joint values are motions '
              'about +z of the actuator.', transform=ax.transAxes, fontsize=8,
              color='#333333')

    ax.set_xlim(-0.12, 0.34)
    ax.set_ylim(-0.27, 0.19)
    ax.set_zlim(-0.02, 0.44)
    ax.set_box_aspect((1, 1, 1), zoom=1.35)
    return fig


def main(argv=None) -> int:
    return picture_main(draw, 'frames.png', __doc__.splitlines()[0], argv)


if __name__ == '__main__':
    sys.exit(main())
