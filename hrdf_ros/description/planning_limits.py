"""Joint limits to plan with: position, velocity, acceleration and effort of every joint,
as the MoveIt package writes them (``joint_limits.yaml``) and the motion planner
(:mod:`hrdf_ros.motion`) times trajectories with.

In: the model, its frame tree, the URDF read back, and optional user overrides
(:class:`~hrdf_ros.description.limits.JointLimit` per joint, e.g. from
:func:`~hrdf_ros.description.limits.read_limits`). Out: :class:`JointLimits` per movable URDF joint
(rad, rad/s, rad/s^2, N m; m, m/s, m/s^2, N for prismatic joints).

Sources of the values:

* **Velocity and effort of actuators**: the module's rated speed and torque from the
  catalogue (:mod:`hrdf_ros.hrdf.catalogue`: hebi-py 2.16.1 ``max_speeds`` /
  ``max_efforts``, i.e. HEBI's data sheets: e.g. X8-9 39 rpm = 4.08 rad/s, 23 N m).
* **Acceleration of actuators**: neither the HRDF, HEBI's library (``hebi.arm`` leaves
  acceleration limits at infinity) nor HEBI's MoveIt configs give one, and MoveIt 2
  needs one (time parameterization and Pilz reject a joint without it). hrdf_ros uses
  rated speed / :data:`ACCELERATION_TIME`: the joint may reach its rated speed in
  0.5 s (X5-1 18.8 rad/s^2, X8-16 4.2 rad/s^2; doc/explanation/moveit_package.md
  lists every type). This is conservative for HEBI's torques (an X8-16's 44 N m
  accelerates a 0.5 kg m^2 arm at 88 rad/s^2) and close to the 5-10 rad/s^2 other
  vendors ship for MoveIt.
* **HRDF ``<joint>`` elements** carry no rated values: velocity
  :data:`~hrdf_ros.description.limits.DEFAULT_JOINT_VELOCITY`, effort
  :data:`~hrdf_ros.description.limits.DEFAULT_JOINT_EFFORT` (the URDF's), acceleration by the
  same rule.
* **Position**: the URDF's ``lower``/``upper`` (revolute and prismatic joints);
  continuous joints have none (MoveIt refuses position limits on them).
* **A parallel gripper's joints**: the URDF's (:mod:`hrdf_ros.description.gripper`: HEBI's
  gripper settings for the finger joint, mapped through the multiplier for its mimic
  joints), acceleration by the same rule.

Overrides (``--limits``): the format of :mod:`hrdf_ros.description.limits`; position,
velocity and effort are the URDF's too, acceleration is MoveIt's only.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Dict, Mapping, Optional

from ..model import RobotModel
from ..numbers import ACCELERATION, EFFORT, VELOCITY
from .frame_tree import FrameTree
from .joints import written_lower, written_magnitude, written_upper
from .limits import JointLimit, rated_limits
from .structure import LinkTree

#: Time to reach the velocity limit from rest at the acceleration limit, s.
ACCELERATION_TIME = 0.5

@dataclass(frozen=True)
class JointLimits:
    """Limits of one joint.

    Attributes:
        lower, upper: position limits (rad or m), or ``None`` for a continuous joint.
        velocity: > 0, rad/s (m/s).
        acceleration: > 0, rad/s^2 (m/s^2).
        effort: > 0, N m (N).
        source: where velocity/effort come from (``X8-9 rated``, ``HRDF joint default``,
            ``user``).
    """

    lower: Optional[float]
    upper: Optional[float]
    velocity: float
    acceleration: float
    effort: float
    source: str


def joint_limits(model: RobotModel, tree: FrameTree, urdf: LinkTree,
                 overrides: Optional[Mapping[str, JointLimit]] = None,
                 sources: Optional[Mapping[str, str]] = None) -> Dict[str, JointLimits]:
    """Limits of every movable URDF joint, URDF order (see the module docstring).

    Args:
        model, tree: the robot and its naming (which element each joint is).
        urdf: the URDF read back (position limits, joint types).
        overrides: values per joint name (a user's, or a HEBI arm config's bounds).
        sources: where a joint's overrides come from (default ``user``).

    Raises:
        ValueError: overrides name joints the URDF does not move.
    """
    overrides = dict(overrides or {})
    movable = [j for j in urdf.joints if j.is_movable]
    unknown = sorted(set(overrides) - {j.name for j in movable})
    if unknown:
        raise ValueError(f'limits given for unknown joints: {", ".join(unknown)} '
                         f'(joints: {", ".join(j.name for j in movable)})')
    element_of = dict(zip(tree.dof_names, model.dof_elements))
    gripper_specs = {spec.name: spec for g in tree.grippers
                     for spec in g.joint_specs(overrides.get(g.joint))}
    out = {}
    for joint in movable:
        element = model.elements[element_of[joint.name]] if joint.name in element_of \
            else None
        if joint.name in gripper_specs:
            spec = gripper_specs[joint.name]
            velocity, effort, source = spec.velocity, spec.effort, 'HEBI gripper settings'
        else:
            velocity, effort, source = rated_limits(element)
        limits = JointLimits(joint.lower, joint.upper, velocity,
                             velocity / ACCELERATION_TIME, effort, source)
        user = overrides.get(joint.name)
        if user is not None:
            if user.has_position and joint.type == 'continuous':
                raise ValueError(f'{joint.name}: the URDF joint is continuous; position '
                                 'limits must be in the URDF too (hrdf urdf --limits)')
            changes = {k: getattr(user, k) for k in ('velocity', 'acceleration', 'effort')
                       if getattr(user, k) is not None}
            if user.has_position:
                changes.update(lower=user.lower, upper=user.upper)
            if changes:
                limits = replace(limits, source=(sources or {}).get(joint.name, 'user'),
                                 **changes)
        out[joint.name] = replace(
            limits, lower=written_lower(limits.lower), upper=written_upper(limits.upper),
            velocity=written_magnitude(limits.velocity, VELOCITY),
            acceleration=written_magnitude(limits.acceleration, ACCELERATION),
            effort=written_magnitude(limits.effort, EFFORT))
    return out
