"""A CoBRA solution of a design: ``design-K.solution.json`` and the ``design-K.urdf`` it is
for.

In: an :class:`~.evaluate.Evaluation`, its :class:`~.job_motion.JobMotion` and the
:class:`~.cobra.CobraTask`. Out: the two files' texts.

* ``design-K.urdf``: the design without its base (at the origin; the solution's
  ``basePose`` places it), as ``hrdf urdf`` writes it with primitives for geometry (no
  mesh files to resolve: every body's visual is its collision shape, so each body has as
  many of one as of the other, as Timor's ``ModuleAssembly.from_monolithic_robot``
  needs), the end effector rigid (no finger joints), and every joint ``revolute`` with
  the motion's position limits (+-:data:`~.job_motion.POSITION_LIMIT`; Pinocchio makes a
  ``continuous`` joint two coordinates). Pinocchio orders its joints as the design does
  (J1, J2, ...). Timor also needs a collision geometry on what each joint moves: where
  the last joint moves nothing with a shape (a ``Custom`` end effector), the end
  effector's link gets a marker, a sphere of 0.4 mm radius 0.6 mm beyond the output
  face (clear of the actuator's own shape, within the planner's 1 mm clearance of it).
* ``design-K.solution.json``, the layout of CoBRA's solutions (timor-python 1.1.1
  ``SolutionTrajectory.to_json_data``): ``taskID``, ``version``, ``author``,
  ``costFunction`` (``cyc``: the cycle time) and its ``cost`` (s), ``basePose`` (a list of
  one 4x4 transform, m: the task's nominal base pose times the design's base), and the
  ``trajectory``: ``t`` (s), ``q``, ``dq``, ``ddq`` (rad, rad/s, rad/s^2, one list per
  time) and ``goal2time`` (goal ID -> s). Two keys of ours: ``jointNames``, the order of
  ``q``'s columns, and ``tcpFrame``, the URDF link whose pose the goals constrain. No
  date (the same job gives the same bytes).

JSON is written by the standard library (floats as their shortest repr).
"""
from __future__ import annotations

import json
import math
import xml.etree.ElementTree as ET
from dataclasses import replace

import numpy as np

from .cobra import CobraTask
from .evaluate import Evaluation
from .job_motion import POSITION_LIMIT, JobMotion

#: The solution's ``author``.
AUTHOR = 'hrdf design (hrdf_ros)'


def without_base(evaluation: Evaluation):
    """The evaluation's design with its base at the origin (the robot ``design-K.urdf``
    describes; the solution's ``basePose`` places it)."""
    return replace(evaluation.design, base=(0.0, 0.0, 0.0, 0.0))


def base_pose(evaluation: Evaluation, job: CobraTask) -> np.ndarray:
    """(4, 4) where the design's base stands in the world frame, m."""
    x, y, z, yaw = (float(v) for v in evaluation.design.base)
    c, s = math.cos(yaw), math.sin(yaw)
    mount = np.array([[c, -s, 0.0, x], [s, c, 0.0, y], [0.0, 0.0, 1.0, z],
                      [0.0, 0.0, 0.0, 1.0]])
    return np.asarray(job.base, dtype=float) @ mount


#: m: the end effector's marker sphere (radius, and its centre beyond the output face).
MARKER_RADIUS = 0.0004
MARKER_OFFSET = 0.0006


def _marker(link: ET.Element) -> None:
    """A visual and a collision sphere of :data:`MARKER_RADIUS` on ``link``, centred
    :data:`MARKER_OFFSET` along its z axis (module docstring)."""
    for tag in ('visual', 'collision'):
        shape = ET.SubElement(link, tag)
        ET.SubElement(shape, 'origin', xyz=f'0 0 {MARKER_OFFSET}', rpy='0 0 0')
        ET.SubElement(ET.SubElement(shape, 'geometry'), 'sphere', radius=str(MARKER_RADIUS))


def design_urdf(evaluation: Evaluation, name: str):
    """(URDF text, the end effector's link) of the design at the origin (module
    docstring).

    Raises:
        ValueError: the design has no single chain of links to the end effector.
    """
    from ..description.robot import describe                          # noqa: PLC0415
    from ..export.urdf import to_urdf_tree                             # noqa: PLC0415
    from ..export.xml_text import document                             # noqa: PLC0415
    model = without_base(evaluation).model()
    tree = describe(model, name, gripper_joints=False, meshes='primitives').tree
    limits = {n: (-POSITION_LIMIT, POSITION_LIMIT)
              for n, e in zip(tree.dof_names, model.dof_elements)
              if model.elements[e].motion[0] == 'r'}
    robot = to_urdf_tree(model, name, position_limits=limits, meshes='primitives',
                         gripper_joints=False)
    tcp = tree.end_effector_links[0]
    links = {link.get('name'): link for link in robot.findall('link')}
    child = {j.find('parent').get('link'): (j.get('type'), j.find('child').get('link'))
             for j in robot.findall('joint')}
    last = [c for _, (kind, c) in child.items() if kind == 'revolute'][-1]
    rigid, link = [last], last                       # what the last joint moves
    while link in child and child[link][0] == 'fixed':
        link = child[link][1]
        rigid.append(link)
    if tcp not in rigid:
        raise ValueError(f'{name}: the end effector {tcp} is not on the last joint')
    if not any(links[r].find('collision') is not None for r in rigid):
        _marker(links[tcp])
    return document(robot), tcp


def solution_json(evaluation: Evaluation, motion: JobMotion, job: CobraTask,
                  tcp_frame: str) -> str:
    """The text of ``design-K.solution.json`` (module docstring)."""
    trajectory = {'t': [float(x) for x in motion.t],
                  'q': motion.q.tolist(), 'dq': motion.dq.tolist(),
                  'ddq': motion.ddq.tolist(),
                  'goal2time': {k: float(v) for k, v in motion.goal_times.items()}}
    data = {'taskID': job.task_id, 'version': '2022', 'author': [AUTHOR], 'email': [''],
            'affiliation': [''], 'costFunction': 'cyc', 'cost': motion.cycle_time,
            'basePose': [base_pose(evaluation, job).tolist()],
            'jointNames': list(motion.joint_names), 'tcpFrame': tcp_frame,
            'trajectory': trajectory}
    return json.dumps(data, indent=1) + '\n'
