"""The node's parameters: declared on the node, checked, and gathered in one object.

In: an rclpy node (values from ``--ros-args -p``, a parameter file or a launch file).
Out: :class:`NodeParameters`, or :class:`StartupError` naming the bad parameter.

Parameters (read-only after start except ``hrdf_file``, ``publish_frequency`` and
``ignore_timestamp``):
    hrdf_file (string, required): path of the HRDF file. Setting it at run time reloads:
        the new file is validated and prepared completely; on success
        robot_description, /tf_static and the kinematics switch over together, on
        failure the set is rejected with the errors and the running model is kept.
    robot_name (string): URDF robot name; default: the file name without extension.
    frame_prefix (string): prepended to every TF frame id (e.g. ``left/``); the URDF is
        unchanged, as with robot_state_publisher.
    publish_frequency (double, Hz, 0..1000, default 20.0), ignore_timestamp (bool, default
        false): as robot_state_publisher (below): /tf at most once per
        1000/publish_frequency ms of stamp time (0: every message; the others only update
        the joint state); ignore_timestamp: every message, out-of-order stamps too.
    republish_frequency (double, Hz, default 0): re-publish the latest moving transforms
        stamped now (0: never; robot_state_publisher has no such timer).
    joint_prefix (string, default ``J``): generated joint names are ``J1, J2, ...``.
    joint_names (string array): explicit joint names, in HEBI joint order (default: an
        element's HRDF ``tag``, else ``J1, J2, ...``).
    position_limits_file (string): YAML ``{joint: [lower, upper]}`` (rad or m) written as
        URDF position limits (those joints become ``revolute``), or
        ``{joint: {lower, upper, velocity, effort}}`` (see :mod:`hrdf_ros.export.limits`).
    mesh_dir (string, default ``''``): a folder with HEBI's mesh files, written as
        ``file://`` URIs; empty: ``HRDF_ROS_MESH_DIR``, else hebi_description through the
        ament index (``package://`` URIs), else the user cache of ``hrdf meshes fetch``,
        else primitives (:mod:`hrdf_ros.export.mesh_sources`; the one used is logged).
    meshes (string, ``auto``, ``package`` or ``primitives``; default ``auto``): ``auto``
        is the rule above; ``package`` writes ``package://hebi_description`` URIs even
        when it is not installed here; ``primitives`` writes no mesh files.
    hebi_meshes (bool, default false): deprecated, ``true`` means ``meshes: package``.
    exact_masses (bool, default false): write HEBI's masses only, without the physical
        fill simulators need (:mod:`hrdf_ros.export.inertials`; the fill is logged).
    ros2_control (string, ``''``, ``mock``, ``gazebo`` or ``hebi``; default ``''``): add
        a ``<ros2_control>`` block for every movable joint to the URDF, with that
        hardware (:mod:`hrdf_ros.export.ros2_control`); ``hebi`` also needs
        hebi_config_pkg and hebi_config_file (HEBI's config_pkg, config_file).
    missing_joints (string, ``last`` or ``zero``, default ``last``): the position of a
        joint absent from a joint_states message (a gripper's finger joint always keeps
        its last position).
    gripper_joints (bool, default true): parallel grippers (X5Parallel, R8Parallel) get
        their finger joint ``gripper_joint`` and mimic joints in the URDF and on /tf;
        false: one rigid end effector, as HEBI's library models it
        (:mod:`hrdf_ros.export.gripper`).
    strict (bool, default false): spec deviations hebi-py accepts (a negative joint
        axis, ...; :mod:`hrdf_ros.hrdf.leniency`) are errors at start, on reload, in
        ~/load_hrdf and ~/validate_hrdf; by default they are logged warnings.
    robot_description (string, generated): the URDF; only the node sets it.

``publish_frequency`` and ``ignore_timestamp`` mean what they mean in
robot_state_publisher (Jazzy/Kilted, ``src/robot_state_publisher.cpp``): a message's /tf
is published only when its header stamp is at least ``1000 / publish_frequency`` ms
(truncated to whole ms) after the stamp last published, unless ``ignore_timestamp``;
both can be set at run time. :func:`throttle_interval_ns` is that rule.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Tuple

from rcl_interfaces.msg import FloatingPointRange, ParameterDescriptor
from rclpy.exceptions import InvalidParameterTypeException, InvalidParameterValueException
from rclpy.node import Node

from ..export.limits import read_limits
from ..export.mesh_sources import MeshSourceError, mesh_source
from ..export.ros2_control import Ros2ControlOptions
from .joint_input import MISSING_JOINT_POLICIES
from .loaded_robot import RobotOptions

READ_ONLY = ParameterDescriptor(read_only=True)
#: robot_state_publisher's bounds of publish_frequency (Hz); rclpy enforces them on set.
MAX_PUBLISH_FREQUENCY = 1000.0
PUBLISH_FREQUENCY = ParameterDescriptor(
    description='maximum /tf rate in joint_states stamp time, as robot_state_publisher: a '
                'message is published only if its stamp is >= 1000/publish_frequency ms '
                '(whole ms) after the last published stamp; 0 = every message',
    floating_point_range=[FloatingPointRange(from_value=0.0, to_value=MAX_PUBLISH_FREQUENCY)])
IGNORE_TIMESTAMP = ParameterDescriptor(
    description='as robot_state_publisher: publish every joint_states message, whatever '
                'its stamp (no publish_frequency limit, out-of-order stamps accepted)')
REPUBLISH_FREQUENCY = ParameterDescriptor(
    description='Hz at which the latest moving transforms are published again, stamped '
                'now; 0 = never (robot_state_publisher has no such timer)',
    read_only=True,
    floating_point_range=[FloatingPointRange(from_value=0.0, to_value=MAX_PUBLISH_FREQUENCY)])


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
    """

    hrdf_file: str
    publish_frequency: float
    republish_frequency: float
    naming: RobotOptions
    missing_joints: str
    ignore_timestamp: bool
    strict: bool = False


def publish_limits(node: Node) -> Tuple[bool, int]:
    """(ignore_timestamp, :func:`throttle_interval_ns`) from the node's current values
    (both may change at run time; rclpy has checked their types and range)."""
    ignore = bool(node.get_parameter('ignore_timestamp').value)
    return ignore, throttle_interval_ns(node.get_parameter('publish_frequency').value, ignore)


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
    """Declare every parameter on ``node`` (all read-only but ``hrdf_file``,
    ``publish_frequency`` and ``ignore_timestamp``) and check the values.

    Raises:
        StartupError: ``hrdf_file`` missing, a value of the wrong type (e.g. an integer
            ``publish_frequency``: write ``10.0``), a frequency outside [0, 1000] Hz, an
            unknown ``missing_joints`` policy, an unreadable or invalid
            ``position_limits_file``, or an unknown ``ros2_control`` hardware (``hebi``
            without ``hebi_config_pkg``/``hebi_config_file``).
    """
    try:
        return _declare(node)
    except (InvalidParameterTypeException, InvalidParameterValueException) as exc:
        hint = ''
        if "of type 'INTEGER', expecting type 'DOUBLE'" in str(exc):
            hint = ' (a double needs a decimal point: 10.0, not 10)'
        raise StartupError(f'{exc}{hint}') from None


def _declare(node: Node) -> NodeParameters:
    path = node.declare_parameter('hrdf_file', '').value
    frequency = float(node.declare_parameter('publish_frequency', 20.0,
                                             PUBLISH_FREQUENCY).value)
    republish = float(node.declare_parameter('republish_frequency', 0.0,
                                             REPUBLISH_FREQUENCY).value)
    names = node.declare_parameter(
        'joint_names', [''], ParameterDescriptor(description='joint names, HEBI order',
                                                 read_only=True)).value
    limits_file = node.declare_parameter('position_limits_file', '', READ_ONLY).value
    try:
        limits = read_limits(limits_file) if limits_file else {}
    except (OSError, ValueError) as exc:
        raise StartupError(f'position_limits_file: {exc}') from None
    mesh_dir = node.declare_parameter('mesh_dir', '', READ_ONLY).value
    meshes = node.declare_parameter('meshes', 'auto', READ_ONLY).value
    if node.declare_parameter('hebi_meshes', False, READ_ONLY).value:
        node.get_logger().warning('parameter hebi_meshes is deprecated: it means '
                                  'meshes: package')
        meshes = 'package'
    try:
        mesh_source(mesh_dir, meshes)
    except MeshSourceError as exc:
        raise StartupError(str(exc)) from None
    naming = RobotOptions(
        robot_name=node.declare_parameter('robot_name', '', READ_ONLY).value,
        frame_prefix=node.declare_parameter('frame_prefix', '', READ_ONLY).value,
        joint_prefix=node.declare_parameter('joint_prefix', 'J', READ_ONLY).value,
        joint_names=tuple(n for n in (names or []) if n),
        position_limits=limits,
        mesh_dir=mesh_dir, meshes=meshes,
        exact_masses=bool(node.declare_parameter('exact_masses', False, READ_ONLY).value),
        ros2_control=_ros2_control(node),
        gripper_joints=bool(node.declare_parameter('gripper_joints', True, READ_ONLY).value))
    missing_joints = node.declare_parameter('missing_joints', 'last', READ_ONLY).value
    ignore_timestamp = bool(node.declare_parameter('ignore_timestamp', False,
                                                   IGNORE_TIMESTAMP).value)
    strict = bool(node.declare_parameter('strict', False, READ_ONLY).value)
    if not path:
        raise StartupError('parameter "hrdf_file" is required '
                           '(--ros-args -p hrdf_file:=/path/to/robot.hrdf)')
    if missing_joints not in MISSING_JOINT_POLICIES:
        raise StartupError(f'missing_joints must be one of '
                           f'{", ".join(MISSING_JOINT_POLICIES)}, got "{missing_joints}"')
    return NodeParameters(path, frequency, republish, naming, missing_joints,
                          ignore_timestamp, strict=strict)
