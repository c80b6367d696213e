"""The node's parameters: one table, declared on the node from it, checked, gathered.

In: an rclpy node (values from ``--ros-args -p``, a parameter file or a launch file).
Out: :class:`NodeParameters`, or :class:`StartupError` naming the bad parameter.

:data:`.parameter_table.PARAMETERS` is the one description of every parameter:
:func:`declare_parameters` declares each from it (default value and
``ParameterDescriptor``), and the documentation's node reference renders the same
table. All are read-only once the node runs except ``hrdf_file`` (a reload),
``publish_frequency`` and ``ignore_timestamp``; ``robot_description`` is the node's
output. The ``qos_overrides.*`` parameters come from :mod:`.qos`.

``publish_frequency`` and ``ignore_timestamp`` mean what they mean in
robot_state_publisher (Jazzy/Kilted, ``src/robot_state_publisher.cpp``): a message's /tf
is published only when its header stamp is at least ``1000 / publish_frequency`` ms
(truncated to whole ms) after the stamp last published, unless ``ignore_timestamp``;
both can be set at run time. :func:`throttle_interval_ns` is that rule.
"""
from __future__ import annotations

from contextlib import contextmanager
from dataclasses import dataclass
from typing import Optional, Tuple

from rclpy.exceptions import InvalidParameterTypeException, InvalidParameterValueException
from rclpy.node import Node
from rclpy.parameter import Parameter

from ..description.limits import read_limits
from ..hrdf.access import REFUSED, FileAccess
from ..hrdf.arm_config import read_arm_config
from ..hrdf.diagnostics import HrdfError
from ..parts.mesh_sources import MeshSourceError, mesh_source
from ..export.ros2_control import Ros2ControlOptions
from ..motion.objects import read_collision_objects
from ..servo.parameters import ServoParameters
from .joint_input import MISSING_JOINT_POLICIES
from .loaded_robot import RobotOptions
from .motion_service import MotionDefaults
from .parameter_table import PARAMETER_SPECS
from .servo_settings import ServoSettings

def declare(node: Node, name: str, value: object = None):
    """Declare parameter ``name`` of :data:`.parameter_table.PARAMETERS` on ``node``, with
    its default
    (or ``value``, e.g. the generated URDF) and descriptor; returns its value."""
    spec = PARAMETER_SPECS[name]
    return node.declare_parameter(name, spec.default if value is None else value,
                                  spec.descriptor()).value


def throttle_interval_ns(publish_frequency: float, ignore_timestamp: bool) -> int:
    """Least stamp distance (ns) between two /tf publications; 0 means no limit.

    robot_state_publisher computes ``milliseconds(uint64(1000.0 / publish_frequency))``:
    20 Hz -> 50 ms, 3 Hz -> 333 ms, 1000 Hz -> 1 ms. Its value at 0 Hz is undefined
    (1000/0 cast to an integer); here 0 Hz means no limit, as ``ignore_timestamp``
    (which additionally accepts out-of-order stamps, see :mod:`.joint_input`).
    """
    if ignore_timestamp or publish_frequency <= 0.0:
        return 0
    return int(1000.0 / publish_frequency) * 1_000_000


class StartupError(Exception):
    """The node cannot start (missing parameter, unreadable or invalid HRDF)."""


@dataclass
class NodeParameters:
    """Parameter values the node runs with.

    Attributes:
        hrdf_file: the HRDF path (may change at run time: a reload).
        publish_frequency: Hz, the /tf rate limit in stamp time (0: none); may change
            at run time.
        republish_frequency: Hz, re-publication rate of the latest moving transforms
            stamped now (0: none).
        naming: what shapes the description (robot name, prefixes, limits, meshes).
        missing_joints: ``last`` or ``zero``.
        ignore_timestamp: publish every message (no rate limit, out-of-order stamps
            accepted); may change at run time.
        strict: spec deviations hebi-py accepts are errors in every load and validation.
        access: the folders files may be read from (``allowed_directories``).
        allow_load: whether loads (by service or by setting ``hrdf_file``) are allowed.
        kinematics: the kinematics path asked for (``auto``, ``numpy`` or ``numba``).
        ik_timeout: s, the default search time of ``~/solve_ik``.
        motion: the planning services' defaults and first collision objects.
        servo: the ``servo.*`` parameters.
    """

    hrdf_file: str
    publish_frequency: float
    republish_frequency: float
    naming: RobotOptions
    missing_joints: str
    ignore_timestamp: bool
    strict: bool = False
    access: FileAccess = FileAccess(())
    allow_load: bool = True
    kinematics: str = 'numpy'
    ik_timeout: float = 0.05
    motion: MotionDefaults = MotionDefaults()
    servo: ServoSettings = ServoSettings()


def publish_limits(node: Node) -> Tuple[bool, int]:
    """(ignore_timestamp, :func:`throttle_interval_ns`) from the node's current values
    (both may change at run time; rclpy has checked their types and range)."""
    ignore = bool(node.get_parameter('ignore_timestamp').value)
    return ignore, throttle_interval_ns(node.get_parameter('publish_frequency').value, ignore)


def _hebi_config(node: Node, strict: bool):
    """The ``hebi_config`` (:class:`~hrdf_ros.hrdf.arm_config.ArmConfig`) with its
    warnings logged, or ``None``."""
    spec = declare(node, 'hebi_config')
    if not spec:
        return None
    try:
        config = read_arm_config(spec, strict=strict)
    except HrdfError as exc:
        raise StartupError(f'hebi_config: {exc}') from None
    for warning in config.warnings:
        node.get_logger().warning(str(warning))
    return config


def _ros2_control(node: Node, config) -> Optional[Ros2ControlOptions]:
    """``ros2_control`` ('' none, mock, gazebo, hebi) as :class:`Ros2ControlOptions`
    (the config and gripper joint filled in when the robot is loaded), or ``None``."""
    hardware = declare(node, 'ros2_control')
    if not hardware:
        return None
    if hardware == 'hebi' and config is None:
        raise StartupError('ros2_control: hebi needs hebi_config (a HEBI arm config, '
                           'PATH.cfg.yaml or PKG:FILE)')
    if hardware == 'hebi' and not config.in_package:
        raise StartupError(f'ros2_control: hebi: {config.path} is in no ROS package, and '
                           'hebi_hardware finds its config through one')
    return Ros2ControlOptions(hardware)


def declare_parameters(node: Node) -> NodeParameters:
    """Declare every parameter on ``node`` (all read-only but ``hrdf_file``,
    ``publish_frequency`` and ``ignore_timestamp``) and check the values.

    Raises:
        StartupError: ``hrdf_file`` missing, a value of the wrong type (e.g. an integer
            ``publish_frequency``: write ``10.0``), a frequency outside [0, 1000] Hz, an
            unknown ``missing_joints`` policy, an unreadable or invalid
            ``position_limits_file``, an unreadable or invalid ``hebi_config`` (or one
            beside ``joint_names``), or an unknown ``ros2_control`` hardware (``hebi``
            without a ``hebi_config`` in a ROS package).
    """
    with refused_values():
        return _declare(node)


@contextmanager
def refused_values():
    """Turn rclpy's refusal of a declared parameter's value (wrong type, out of range)
    into a :class:`StartupError` with rclpy's message, plus a hint for an integer given
    where a double is expected.

    Raises:
        StartupError: when the body raises rclpy's ``InvalidParameterTypeException`` or
            ``InvalidParameterValueException``.
    """
    try:
        yield
    except (InvalidParameterTypeException, InvalidParameterValueException) as exc:
        hint = ''
        if "of type 'INTEGER', expecting type 'DOUBLE'" in str(exc):
            hint = ' (a double needs a decimal point: 10.0, not 10)'
        raise StartupError(f'{exc}{hint}') from None


def _declare(node: Node) -> NodeParameters:
    strict = bool(declare(node, 'strict'))
    config = _hebi_config(node, strict)
    path = declare(node, 'hrdf_file')
    if not path and config is not None and config.hrdf:    # the config's, shown as set
        path = config.hrdf
        node.set_parameters([Parameter('hrdf_file', value=path)])
    frequency = float(declare(node, 'publish_frequency'))
    republish = float(declare(node, 'republish_frequency'))
    names = [n for n in declare(node, 'joint_names') or [] if n]
    if names and config is not None:
        raise StartupError('joint_names and hebi_config both name the joints: set one')
    limits_file = declare(node, 'position_limits_file')
    try:
        limits = read_limits(limits_file) if limits_file else {}
    except (OSError, ValueError) as exc:
        raise StartupError(f'position_limits_file: {exc}') from None
    mesh_dir = declare(node, 'mesh_dir')
    meshes = declare(node, 'meshes')
    if declare(node, 'hebi_meshes'):
        node.get_logger().warning('parameter hebi_meshes is deprecated: it means '
                                  'meshes: package')
        meshes = 'package'
    try:
        mesh_source(mesh_dir, meshes)
    except MeshSourceError as exc:
        raise StartupError(str(exc)) from None
    naming = RobotOptions(
        robot_name=declare(node, 'robot_name'),
        frame_prefix=declare(node, 'frame_prefix'),
        joint_prefix=declare(node, 'joint_prefix'),
        joint_names=tuple(names), hebi_config=config,
        position_limits=limits,
        mesh_dir=mesh_dir, meshes=meshes,
        exact_masses=bool(declare(node, 'exact_masses')),
        ros2_control=_ros2_control(node, config),
        gripper_joints=bool(declare(node, 'gripper_joints')))
    missing_joints = declare(node, 'missing_joints')
    ignore_timestamp = bool(declare(node, 'ignore_timestamp'))
    if not path:
        raise StartupError('parameter "hrdf_file" is required '
                           '(--ros-args -p hrdf_file:=/path/to/robot.hrdf), or a '
                           'hebi_config that names one')
    if missing_joints not in MISSING_JOINT_POLICIES:
        raise StartupError(f'missing_joints must be one of '
                           f'{", ".join(MISSING_JOINT_POLICIES)}, got "{missing_joints}"')
    directories = [d for d in declare(node, 'allowed_directories') or [] if d]
    if not directories:
        access = FileAccess.around([path] + ([config.path] if config else []))
    else:
        access = FileAccess.of(directories)
    return NodeParameters(path, frequency, republish, naming, missing_joints,
                          ignore_timestamp, strict=strict, access=access,
                          allow_load=bool(declare(node, 'allow_load')),
                          kinematics=declare(node, 'kinematics'),
                          ik_timeout=float(declare(node, 'ik_timeout')),
                          motion=_motion(node, access if directories else None),
                          servo=_servo(node))


def _servo(node: Node) -> ServoSettings:
    """The ``servo.*`` parameters, checked as the servo core checks them.

    Raises:
        StartupError: an unknown command_out_type, thresholds out of order.
    """
    enabled = bool(declare(node, 'servo.enabled'))
    kind = declare(node, 'servo.command_out_type')
    topic = declare(node, 'servo.command_out_topic')
    names = ('publish_period', 'incoming_command_timeout', 'lower_singularity_threshold',
             'hard_stop_singularity_threshold', 'self_collision_proximity_threshold',
             'scene_collision_proximity_threshold')
    values = {name: float(declare(node, f'servo.{name}')) for name in names}
    choices = PARAMETER_SPECS['servo.command_out_type'].choices
    if kind not in choices:
        raise StartupError(f'servo.command_out_type must be one of {", ".join(choices)}, '
                           f'got "{kind}"')
    try:
        parameters = ServoParameters(**values)
    except ValueError as exc:
        raise StartupError(f'servo.{exc}') from None
    return ServoSettings(enabled, kind, topic, parameters)


def _motion(node: Node, access: Optional[FileAccess]) -> MotionDefaults:
    """The planning defaults and the ``collision_objects`` file's objects (read with
    PyYAML and checked against the schema; inside ``access`` when given)."""
    path = declare(node, 'collision_objects')
    objects = ()
    if path:
        if access is not None and not access.readable(path):
            raise StartupError(f'collision_objects: {path}: {REFUSED}')
        try:
            objects = tuple(read_collision_objects(path))
        except (OSError, ValueError) as exc:
            raise StartupError(f'collision_objects: {exc}') from None
    return MotionDefaults(float(declare(node, 'default_velocity_scaling_factor')),
                          float(declare(node, 'default_acceleration_scaling_factor')),
                          float(declare(node, 'default_planning_time')), objects,
                          str(declare(node, 'trajectory_action')))
