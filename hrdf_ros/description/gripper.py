"""The parallel gripper's links and joints in the exported robot: names, joint limits and
mimic rules, and the gripper's mass split over its links.

In: a :class:`~hrdf_ros.model.RobotModel` and the element link names of its frame tree.
Out: one :class:`GripperTree` per ``X5Parallel`` / ``R8Parallel`` end effector, and per
gripper the inertials of its links (:func:`gripper_inertials`). The mechanism itself
(parts, origins, mimic multipliers) is :mod:`hrdf_ros.kinematics.gripper`.

Names (every one also gets the xacro ``prefix`` and the node's ``frame_prefix``, like any
other name): the gripper's *stem* is ``gripper`` (``gripper1``, ``gripper2``... when a
robot has several, in end-effector order). The end effector's element link is the
gripper's base; each part is a link ``<stem>_<part>`` (``gripper_l_finger``,
``gripper_r_jaw``, ...). The finger joint, the one a controller drives, is
``<stem>_joint`` (``gripper_joint``); the other moving parts hang on URDF ``<mimic>``
joints ``<stem>_<part>_joint`` and fixed parts on fixed joints of the same pattern.

Limits of the finger joint: position :data:`~hrdf_ros.kinematics.gripper.GRIPPER_LOWER`
.. :data:`~hrdf_ros.kinematics.gripper.GRIPPER_UPPER` (0 .. 0.37 pi rad, HEBI's
end_effector.xacro); velocity :data:`GRIPPER_VELOCITY` and effort
:data:`GRIPPER_EFFORT` (HEBI gives no finger-side rating; these are the spool-side
values of HEBI's gripper settings). ``--limits`` can replace them for ``gripper_joint``
like for any joint. A mimic joint's limits are the finger joint's mapped through its
multiplier (a ``revolute`` joint over exactly the range the mimic gives it; HEBI writes
the inner linkages ``continuous``).

Mass split: HEBI's library gives the gripper one body (mass 0.2464 kg, COM 45 mm up the
gripper axis; hrdf_ros's tensor is HEBI's description's 13 bodies summed about their
composite COM). The links get HEBI's description's per-body masses and tensors
(end_effector.xacro, 0.206 kg in all) scaled by (element mass / 0.206), and each body's
COM moved by the same vector (at gripper position 0, in the base frame) so that together
they have, at gripper position 0, exactly the element's mass, COM and inertia tensor: the
rigid gripper of hebi-py (and of ``--no-gripper-joints``) is unchanged; opening and
closing moves the fingers' mass with them.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Dict, List, Optional, Sequence, Tuple

import numpy as np

from .. import reproducible
from ..kinematics import gripper as mechanism
from ..kinematics.rotations import rpy_to_rotation
from ..model import RobotModel
from ..numbers import EFFORT, VELOCITY
from .joints import written_lower, written_magnitude, written_upper
from .limits import JointLimit

#: Finger joint velocity limit, rad/s: HEBI's gripper spool velocity bound
#: (hebi_description config/arms/gains/A-2080-01.xml, velocity max_target).
GRIPPER_VELOCITY = 1.502675
#: Finger joint effort limit, N m: the largest effort HEBI's kit configs apply to the
#: gripper spool (hebi_description config/arms/*G.cfg.yaml, gripper_close_effort -5).
GRIPPER_EFFORT = 5.0
#: The finger joint's name in HEBI's ROS 2 stack: hebi_description's kit URDFs and their
#: ros2_control macros (``<end effector>/input_l_finger``, the gripper element named
#: ``end_effector_1``), hebi_ros2_examples' arm node (its joint_states, 4e4b815) and the
#: gripper controller of its README. Used for the gripper of a HEBI arm config.
HEBI_GRIPPER_JOINT = 'end_effector_1/input_l_finger'
#: The finger joint position hebi_hardware reports for a fully closed gripper, rad: its
#: state is the gripper's [0, 1] command fraction times 0.365 pi (HebiRobotics/
#: hebi_hardware jazzy c714483, src/hebi_hardware_interface.cpp, read()).
HEBI_HARDWARE_CLOSED = 0.365 * math.pi
#: Total mass of HEBI's description's 13 gripper bodies, kg (end_effector.xacro).
HEBI_DESCRIPTION_MASS = 0.206
#: The base body's part name (the end effector's element link).
BASE = 'base'


@dataclass(frozen=True)
class GripperJointSpec:
    """One joint of a gripper as written in the URDF/SDFormat.

    Attributes:
        name, parent, child: joint, parent link and child link names.
        origin: (4, 4) child joint frame in the parent link frame (m).
        kind: ``fixed`` or ``revolute`` (about +x).
        lower, upper, velocity, effort: limits (rad, rad/s, N m) of a revolute joint.
        mimic: ``(joint, multiplier, offset)`` for a mimic joint, else ``None``.
        part: the part the joint carries.
    """

    name: str
    parent: str
    child: str
    origin: np.ndarray
    kind: str
    lower: Optional[float] = None
    upper: Optional[float] = None
    velocity: Optional[float] = None
    effort: Optional[float] = None
    mimic: Optional[Tuple[str, float, float]] = None
    part: str = ''


@dataclass(frozen=True)
class GripperTree:
    """The names of one gripper.

    Attributes:
        element: index of its end-effector element.
        base_link: the element's link (the gripper base).
        stem: ``gripper``, or ``gripper1``... when the robot has several.
        joint: the finger joint (``<stem>_joint``).
        links: ``{part: link name}`` in :data:`~hrdf_ros.kinematics.gripper.PARTS` order.
        joints: ``{part: joint name}``, same order.
    """

    element: int
    base_link: str
    stem: str
    joint: str
    links: Dict[str, str]
    joints: Dict[str, str]

    def link_of(self, part: str) -> str:
        """Link name of a part (``''`` or ``'base'``: the base link)."""
        return self.base_link if part in ('', BASE) else self.links[part]

    @property
    def mimic_joints(self) -> List[str]:
        """Joints that follow the finger joint."""
        return [self.joints[p.name] for p in mechanism.PARTS if p.moving and not p.actuated]

    @property
    def moving_joints(self) -> List[str]:
        """The finger joint, then the mimic joints."""
        return [self.joint] + self.mimic_joints

    def joint_specs(self, limit: Optional[JointLimit] = None) -> List[GripperJointSpec]:
        """Every joint of the gripper (:data:`~hrdf_ros.kinematics.gripper.PARTS` order),
        with the finger joint's limits (``limit``: the user's, else the defaults)."""
        lower, upper, velocity, effort = finger_limits(limit)
        out = []
        for p in mechanism.PARTS:
            parent, child = self.link_of(p.parent), self.links[p.name]
            if not p.moving:
                out.append(GripperJointSpec(self.joints[p.name], parent, child, p.origin,
                                            'fixed', part=p.name))
                continue
            m = p.multiplier
            ends = sorted((m * lower + p.offset, m * upper + p.offset))
            mimic = None if p.actuated else (self.joint, m, p.offset)
            out.append(GripperJointSpec(
                self.joints[p.name], parent, child, p.origin, 'revolute',
                written_lower(ends[0]), written_upper(ends[1]),
                written_magnitude(abs(m) * velocity, VELOCITY),
                written_magnitude(effort / abs(m), EFFORT), mimic, p.name))
        return out


def finger_limits(limit: Optional[JointLimit] = None) -> Tuple[float, float, float, float]:
    """(lower, upper, velocity, effort) of the finger joint (rad, rad/s, N m): the user's
    values where given, else HEBI's range and :data:`GRIPPER_VELOCITY`,
    :data:`GRIPPER_EFFORT`."""
    limit = limit or JointLimit()
    lower, upper = ((limit.lower, limit.upper) if limit.has_position
                    else (mechanism.GRIPPER_LOWER, mechanism.GRIPPER_UPPER))
    return (lower, upper, limit.velocity or GRIPPER_VELOCITY,
            limit.effort or GRIPPER_EFFORT)


def gripper_trees(model: RobotModel, element_links: Sequence[str],
                  finger_joints: Sequence[str] = ()) -> Tuple[GripperTree, ...]:
    """One :class:`GripperTree` per parallel-gripper end effector, in element order.

    Args:
        model: the robot.
        element_links: link name per element (the frame tree's ``element_links``).
        finger_joints: names for the grippers' finger joints, in order, replacing
            ``<stem>_joint`` for as many grippers as given (a HEBI arm config's gripper:
            :data:`HEBI_GRIPPER_JOINT`).
    """
    elements = [i for i, e in enumerate(model.elements) if mechanism.is_parallel_gripper(e)]
    out = []
    for k, index in enumerate(elements):
        stem = 'gripper' if len(elements) == 1 else f'gripper{k + 1}'
        finger = finger_joints[k] if k < len(finger_joints) else f'{stem}_joint'
        links = {p.name: f'{stem}_{p.name}' for p in mechanism.PARTS}
        joints = {p.name: (finger if p.actuated else f'{stem}_{p.name}_joint')
                  for p in mechanism.PARTS}
        out.append(GripperTree(index, element_links[index], stem, finger, links, joints))
    return tuple(out)


# -- mass split ---------------------------------------------------------------------------
def _box(mass, a, b):
    return mass * (a * a + b * b) / 12.0


def _body(mass, xyz, rpy, ixx, iyy, izz):
    return mass, np.array(xyz, float), np.array(rpy, float), (ixx, iyy, izz)


_PI = math.pi
#: HEBI's description's bodies: mass kg, COM xyz (m) and rpy (rad) in the link frame,
#: principal moments about the COM (kg m^2) in that frame (end_effector.xacro, its
#: approximations: discs, hollow spheres, boxes, rods).
_BODIES = {
    BASE: _body(0.072, (0, 0, 0), (0, 0, 0), 0.072 * (3 * 0.0225 ** 2 + 0.0075 ** 2) / 12,
                0.072 * (3 * 0.0225 ** 2 + 0.0075 ** 2) / 12, 0.072 * 0.0225 ** 2 / 2),
    'hub': _body(0.010, (0, 0, 0), (0, 0, 0), *(0.66 * 0.010 * 0.0225 ** 2,) * 3),
    'pinion': _body(0.010, (0, 0, 0), (0, 0, 0), *(0.66 * 0.010 * 0.0225 ** 2,) * 3),
    'finger': _body(0.022, (0, 0.015, 0), (_PI / 2, 0, 0), _box(0.022, 0.007, 0.03),
                    _box(0.022, 0.011, 0.03), _box(0.022, 0.011, 0.007)),
    'outer_linkage': _body(0.010, (0, 0.015, 0.007), (0, 0, 0), _box(0.010, 0.03, 0.03),
                           _box(0.010, 0.023, 0.03), _box(0.010, 0.023, 0.03)),
    'jaw': _body(0.014, (0, -0.005, 0.02), (0, 0, 0), _box(0.014, 0.01, 0.05),
                 _box(0.014, 0.01, 0.05), _box(0.014, 0.01, 0.01)),
    'jaw_pin': _body(0.001, (0, 0, 0), (0, _PI / 2, 0),
                     0.001 * (3 * 0.002 ** 2 + 0.02 ** 2) / 12,
                     0.001 * (3 * 0.002 ** 2 + 0.02 ** 2) / 12, 0.001 * 0.002 ** 2 / 2),
    'inner_linkage': _body(0.010, (0, 0, 0.0215), (_PI / 2, 0, 0),
                           _box(0.010, 0.05, 0.005), _box(0.010, 0.02, 0.005),
                           _box(0.010, 0.02, 0.05)),
}


def _hebi_body(part: str):
    return _BODIES[part if part in _BODIES else part.split('_', 1)[1]]


def gripper_inertials(element_mass: float, element_com: np.ndarray
                      ) -> Dict[str, Tuple[float, np.ndarray, Tuple[float, ...]]]:
    """Inertial of every gripper link (see the module docstring).

    Args:
        element_mass: the end effector's mass, kg (hebi-py's 0.2464 for X5/R8Parallel).
        element_com: (4, 4) its COM frame in the base frame (m); its translation is
            where the links' composite COM lies at gripper position 0.

    Returns:
        ``{part: (mass kg, COM frame (4, 4) in the part's link frame, (ixx, iyy, izz,
        ixy, ixz, iyz) kg m^2 in the COM frame)}`` for :data:`BASE` and every part.
        The masses sum to ``element_mass`` (the base takes the rounding remainder).
    """
    scale = float(element_mass) / HEBI_DESCRIPTION_MASS
    poses = dict(mechanism.zero_poses(), **{BASE: np.eye(4)})
    names = [BASE] + list(mechanism.PART_NAMES)
    frames, masses = {}, {}
    for name in names:
        mass, xyz, rpy, _ = _hebi_body(name)
        com = np.eye(4)
        com[:3, :3], com[:3, 3] = rpy_to_rotation(*rpy), xyz
        frames[name] = reproducible.compose(poses[name], com)  # base frame, position 0
        masses[name] = mass * scale
    masses[BASE] = float(element_mass) - sum(masses[n] for n in names[1:])
    shift = np.zeros(3)
    if element_mass > 0.0:
        composite = sum(masses[n] * frames[n][:3, 3] for n in names) / float(element_mass)
        shift = np.asarray(element_com, float)[:3, 3] - composite
    out = {}
    for name in names:
        moved = frames[name].copy()
        moved[:3, 3] += shift
        moments = tuple(scale * v for v in _hebi_body(name)[3])
        com = reproducible.compose(reproducible.rigid_inverse(poses[name]), moved)
        out[name] = (masses[name], com, moments + (0.0, 0.0, 0.0))
    return out
