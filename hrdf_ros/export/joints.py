"""Joint types, axes, limits and transmissions of the exported robot (URDF and SDFormat).

In: a degree-of-freedom :class:`~hrdf_ros.model.Element` and the user's
:class:`~hrdf_ros.export.limits.JointLimit` for its joint (or ``None``). Out: a
:class:`JointSpec` (type, unit axis, limits), and the URDF ``<transmission>`` element.

* Actuators are ``continuous`` (HEBI actuators turn without end stops), with
  ``<limit effort velocity>`` from the module's rated torque (N m) and speed (rad/s).
* HRDF ``<joint>`` rotations are ``continuous`` with no ``<limit>`` (no rated speed or
  effort: unlimited, never 0); translations are ``prismatic`` with position limits
  +-:data:`~hrdf_ros.export.limits.DEFAULT_PRISMATIC_LIMIT` m (URDF requires limits),
  velocity :data:`~hrdf_ros.export.limits.DEFAULT_JOINT_VELOCITY` and effort
  :data:`~hrdf_ros.export.limits.DEFAULT_JOINT_EFFORT`.
* User position limits make a rotation ``revolute``; user velocity/effort replace the
  rated or default values.
* The axis is the element's motion axis times its ``axis_sign`` (``0 0 -1`` for an HRDF
  ``axis="-rz"``), so URDF joint values are HEBI positions divided by the gear ratio.
* Every degree of freedom gets a ``transmission_interface/SimpleTransmission`` with
  ``<joint name>`` and ``<actuator name="<joint>_actuator">`` and ``mechanicalReduction``
  = the HRDF gear ratio (1 for actuators): the form Drake turns into an actuator (with
  the joint's effort limit) and ros2_control reads (actuator = HEBI position, joint =
  URDF value).
"""
from __future__ import annotations

import xml.etree.ElementTree as ET
from dataclasses import dataclass
from typing import Dict, Optional

import numpy as np

from ..model import Element
from .limits import (DEFAULT_JOINT_EFFORT, DEFAULT_JOINT_VELOCITY,
                     DEFAULT_PRISMATIC_LIMIT, JointLimit)
from .xml_text import num

_AXES = {'x': (1.0, 0.0, 0.0), 'y': (0.0, 1.0, 0.0), 'z': (0.0, 0.0, 1.0)}


@dataclass(frozen=True)
class JointSpec:
    """How one degree of freedom is written.

    Attributes:
        kind: URDF type: ``continuous``, ``revolute`` or ``prismatic``.
        axis: (3,) unit axis in the joint frame (the child link frame).
        lower, upper: position limits (rad or m), or ``None`` (continuous).
        velocity, effort: limits (rad/s or m/s; N m or N), or ``None`` when unlimited.
        reduction: HEBI position per URDF joint value (the HRDF gear ratio).
    """

    kind: str
    axis: np.ndarray
    lower: Optional[float]
    upper: Optional[float]
    velocity: Optional[float]
    effort: Optional[float]
    reduction: float

    def limit_attributes(self) -> Optional[Dict[str, str]]:
        """URDF ``<limit>`` attributes, or ``None`` when the joint has no ``<limit>``."""
        if self.lower is None and self.velocity is None and self.effort is None:
            return None
        limit = {}
        if self.lower is not None:
            limit.update(lower=num(self.lower), upper=num(self.upper))
        # URDF requires both effort and velocity on a <limit>
        limit.update(effort=num(self.effort if self.effort is not None
                                else DEFAULT_JOINT_EFFORT),
                     velocity=num(self.velocity if self.velocity is not None
                                  else DEFAULT_JOINT_VELOCITY))
        return limit


def joint_spec(element: Element, limit: Optional[JointLimit] = None) -> JointSpec:
    """The :class:`JointSpec` of a degree-of-freedom element.

    Args:
        element: an element with ``motion`` (actuator or HRDF joint).
        limit: the user's limits for its joint, or ``None``.
    """
    limit = limit or JointLimit()
    axis = np.array(_AXES[element.motion[1]]) * float(np.sign(element.axis_sign) or 1.0)
    velocity, effort = element.max_speed, element.max_effort
    lower = upper = None
    if element.motion[0] == 't':
        kind = 'prismatic'
        lower, upper = -DEFAULT_PRISMATIC_LIMIT, DEFAULT_PRISMATIC_LIMIT
        if velocity is None:
            velocity, effort = DEFAULT_JOINT_VELOCITY, DEFAULT_JOINT_EFFORT
    else:
        kind = 'continuous'
    if limit.has_position:
        lower, upper = limit.lower, limit.upper
        if kind == 'continuous':
            kind = 'revolute'
            if velocity is None:
                velocity, effort = DEFAULT_JOINT_VELOCITY, DEFAULT_JOINT_EFFORT
    if limit.velocity is not None:
        velocity = limit.velocity
    if limit.effort is not None:
        effort = limit.effort
    return JointSpec(kind, axis, lower, upper, velocity, effort, float(element.gear_ratio))


def axis_text(axis) -> str:
    """``'0 0 1'``, ``'0 0 -1'``: a principal unit axis as URDF/SDFormat text."""
    return ' '.join(f'{float(v) + 0.0:g}' for v in axis)


def add_joint_details(node: ET.Element, spec: JointSpec) -> None:
    """Append ``<axis>`` and (when limited) ``<limit>`` to a URDF ``<joint>``."""
    ET.SubElement(node, 'axis', {'xyz': axis_text(spec.axis)})
    limit = spec.limit_attributes()
    if limit is not None:
        ET.SubElement(node, 'limit', limit)


def add_transmission(robot: ET.Element, joint: str, reduction: float) -> None:
    """Append a SimpleTransmission for ``joint`` to the URDF ``<robot>``."""
    transmission = ET.SubElement(robot, 'transmission', {'name': f'{joint}_transmission'})
    ET.SubElement(transmission, 'type').text = 'transmission_interface/SimpleTransmission'
    ET.SubElement(ET.SubElement(transmission, 'joint', {'name': joint}),
                  'hardwareInterface').text = 'hardware_interface/PositionJointInterface'
    actuator = ET.SubElement(transmission, 'actuator', {'name': f'{joint}_actuator'})
    ET.SubElement(actuator, 'mechanicalReduction').text = num(reduction)
