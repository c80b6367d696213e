"""The node's parameters: declared on the node, checked, and gathered in one object.

In: an rclpy node (values from ``--ros-args -p``, a parameter file or a launch file).
Out: :class:`NodeParameters`, or :class:`StartupError` naming the bad parameter. The
meaning of each parameter is documented in :mod:`hrdf_ros.ros.node`.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from rcl_interfaces.msg import ParameterDescriptor
from rclpy.node import Node

from ..export.limits import read_limits
from ..export.ros2_control import Ros2ControlOptions
from .joint_input import MISSING_JOINT_POLICIES
from .loaded_robot import RobotOptions

READ_ONLY = ParameterDescriptor(read_only=True)


class StartupError(Exception):
    """The node cannot start (missing parameter, unreadable or invalid HRDF)."""


@dataclass
class NodeParameters:
    """Parameter values the node runs with.

    Attributes:
        hrdf_file: the HRDF path (the only parameter that may change at run time).
        publish_frequency: Hz, re-publication rate of the moving transforms (0: none).
        naming: what shapes the description (robot name, prefixes, limits, meshes).
        missing_joints: ``last`` or ``zero``.
        ignore_timestamp: accept out-of-order joint_states.
    """

    hrdf_file: str
    publish_frequency: float
    naming: RobotOptions
    missing_joints: str
    ignore_timestamp: bool


def _ros2_control(node: Node):
    """``ros2_control`` ('' none, mock, gazebo, hebi) with ``hebi_config_pkg`` and
    ``hebi_config_file`` as :class:`Ros2ControlOptions`, or ``None``."""
    hardware = node.declare_parameter('ros2_control', '', READ_ONLY).value
    package = node.declare_parameter('hebi_config_pkg', '', READ_ONLY).value
    config = node.declare_parameter('hebi_config_file', '', READ_ONLY).value
    if not hardware:
        return None
    options = Ros2ControlOptions(hardware, package, config)
    try:
        options.check([])
    except ValueError as exc:
        raise StartupError(f'ros2_control: {exc}') from None
    return options


def declare_parameters(node: Node) -> NodeParameters:
    """Declare every parameter on ``node`` (all read-only but ``hrdf_file``) and check
    the values.

    Raises:
        StartupError: ``hrdf_file`` missing, a negative or non-finite
            ``publish_frequency``, an unknown ``missing_joints`` policy, an unreadable
            or invalid ``position_limits_file``, or an unknown ``ros2_control`` hardware
            (``hebi`` without ``hebi_config_pkg``/``hebi_config_file``).
    """
    path = node.declare_parameter('hrdf_file', '').value
    frequency = float(node.declare_parameter('publish_frequency', 20.0, READ_ONLY).value)
    names = node.declare_parameter(
        'joint_names', [''], ParameterDescriptor(description='joint names, HEBI order',
                                                 read_only=True)).value
    limits_file = node.declare_parameter('position_limits_file', '', READ_ONLY).value
    try:
        limits = read_limits(limits_file) if limits_file else {}
    except (OSError, ValueError) as exc:
        raise StartupError(f'position_limits_file: {exc}') from None
    naming = RobotOptions(
        robot_name=node.declare_parameter('robot_name', '', READ_ONLY).value,
        frame_prefix=node.declare_parameter('frame_prefix', '', READ_ONLY).value,
        joint_prefix=node.declare_parameter('joint_prefix', 'J', READ_ONLY).value,
        joint_names=tuple(n for n in (names or []) if n),
        position_limits=limits,
        hebi_meshes=bool(node.declare_parameter('hebi_meshes', False, READ_ONLY).value),
        ros2_control=_ros2_control(node))
    missing_joints = node.declare_parameter('missing_joints', 'last', READ_ONLY).value
    ignore_timestamp = bool(node.declare_parameter('ignore_timestamp', False, READ_ONLY).value)
    if not path:
        raise StartupError('parameter "hrdf_file" is required '
                           '(--ros-args -p hrdf_file:=/path/to/robot.hrdf)')
    if not math.isfinite(frequency) or frequency < 0.0:
        raise StartupError(f'publish_frequency must be >= 0 Hz, got {frequency}')
    if missing_joints not in MISSING_JOINT_POLICIES:
        raise StartupError(f'missing_joints must be one of '
                           f'{", ".join(MISSING_JOINT_POLICIES)}, got "{missing_joints}"')
    return NodeParameters(path, frequency, naming, missing_joints, ignore_timestamp)
