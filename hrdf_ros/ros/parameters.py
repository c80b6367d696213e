"""The node's parameters: one table, declared on the node from it, checked, gathered.

In: an rclpy node (values from ``--ros-args -p``, a parameter file or a launch file).
Out: :class:`NodeParameters`, or :class:`StartupError` naming the bad parameter.

:data:`PARAMETERS` is the one description of every parameter (name, default and so
type, range or choices, whether it can be set at run time, meaning, what
robot_state_publisher does): :func:`declare_parameters` declares each from it (default
value and ``ParameterDescriptor``), and the documentation's node reference renders the
same table. All are read-only once the node runs except ``hrdf_file`` (a reload),
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
from typing import Dict, Optional, Tuple

from rcl_interfaces.msg import FloatingPointRange, IntegerRange, ParameterDescriptor
from rclpy.exceptions import InvalidParameterTypeException, InvalidParameterValueException
from rclpy.node import Node
from rclpy.parameter import Parameter

from ..export.limits import read_limits
from ..hrdf.access import FileAccess
from ..hrdf.arm_config import read_arm_config
from ..hrdf.diagnostics import HrdfError
from ..export.mesh_sources import MESH_MODES, MeshSourceError, mesh_source
from ..export.ros2_control import HARDWARE_PLUGINS, Ros2ControlOptions
from ..kinematics.backend import CHOICES
from .joint_input import MISSING_JOINT_POLICIES
from .loaded_robot import RobotOptions

#: robot_state_publisher's bounds of publish_frequency (Hz); rclpy enforces them on set.
MAX_PUBLISH_FREQUENCY = 1000.0
#: ``ParameterSpec.access`` values: fixed once the node runs; may be set at run time;
#: written by the node itself (a set from outside is refused); read at start only (a
#: later set is accepted and changes nothing: hrdf_ros_web_view's).
ACCESS = ('read-only', 'settable', 'output', 'start')
_TYPE_NAMES = {str: 'string', float: 'double', bool: 'bool', int: 'integer',
               list: 'string[]'}


@dataclass(frozen=True)
class ParameterSpec:
    """One parameter of a node (``hrdf_ros_node``, ``hrdf_ros_web_view``): how it is
    declared and what it means.

    Attributes:
        name: the ROS parameter name.
        default: the value it is declared with; its Python type is the parameter's type
            (``str``, ``float``, ``int``, ``bool``; a list of ``str`` for a string
            array).
        description: what it does (the ``ParameterDescriptor`` description, and the
            reference; inline Markdown).
        access: one of :data:`ACCESS`.
        value_range: ``(lower, upper)`` of a double or an integer, enforced by rclpy at
            start and on set (``FloatingPointRange``, ``IntegerRange``), or None.
        choices: the accepted strings (checked at start), or empty for any.
        shown_default: the default as the reference shows it when ``default`` is only a
            placeholder (an empty string array is declared as ``['']``), else empty.
        robot_state_publisher: what robot_state_publisher has instead, or empty for
            nothing (inline Markdown).
    """

    name: str
    default: object
    description: str
    access: str = 'read-only'
    value_range: Optional[Tuple[float, float]] = None
    choices: Tuple[str, ...] = ()
    shown_default: str = ''
    robot_state_publisher: str = ''

    @property
    def type_name(self) -> str:
        """The ROS parameter type: ``string``, ``double``, ``integer``, ``bool`` or
        ``string[]``."""
        return _TYPE_NAMES[type(self.default)]

    def descriptor(self) -> ParameterDescriptor:
        """The ``ParameterDescriptor`` the node declares this parameter with."""
        descriptor = ParameterDescriptor(description=self.description,
                                         read_only=self.access == 'read-only')
        if self.value_range is not None:
            lower, upper = self.value_range
            if isinstance(self.default, int) and not isinstance(self.default, bool):
                descriptor.integer_range = [IntegerRange(from_value=lower, to_value=upper,
                                                         step=1)]
            else:
                descriptor.floating_point_range = [FloatingPointRange(from_value=lower,
                                                                      to_value=upper)]
        if self.choices:
            descriptor.additional_constraints = 'one of: ' + ', '.join(
                repr(c) for c in self.choices)
        return descriptor


_RATE = (0.0, MAX_PUBLISH_FREQUENCY)
#: Every parameter of ``hrdf_ros_node``, in the order the reference lists them.
PARAMETERS: Tuple[ParameterSpec, ...] = (
    ParameterSpec(
        'hrdf_file', '', 'HRDF file (required, unless `hebi_config` names one). Setting it '
        'at run time reloads the robot; a file that does not load is refused with its '
        'errors and the running model stays.', 'settable',
        shown_default='required'),
    ParameterSpec(
        'allowed_directories', [''], 'Folders the node reads HRDF files from: the paths '
        'of `~/load_hrdf` and `~/validate_hrdf`, a run-time `hrdf_file`, and the files '
        'they include (each path resolved, symbolic links and `..` included). A path '
        'elsewhere, a missing file and a directory are all refused with the same message, '
        'which never says whether the file exists. Default: the folder of `hrdf_file` '
        '(and of `hebi_config`; of a symbolic link\'s target too), and the share folder '
        'of the ROS package each lies in. Bounds of every request: 8 MiB in all (the '
        'file or text and the files it includes), 100 000 XML elements, 128 levels of '
        'nesting, 1024 includes 16 files deep.',
        shown_default="the start hrdf_file's folder and package"),
    ParameterSpec(
        'allow_load', True, '`false`: every load is refused (`~/load_hrdf` by path or '
        'text, setting `hrdf_file`); `~/validate_hrdf` still answers, for files and '
        'includes inside `allowed_directories`.'),
    ParameterSpec(
        'robot_description', '', 'The URDF generated from the HRDF; only the node sets it '
        '(set `hrdf_file` to change the robot).', 'output', shown_default='generated',
        robot_state_publisher='the URDF, an input; settable at run time'),
    ParameterSpec(
        'robot_name', '', 'URDF `<robot name>`; empty: the HRDF file name without '
        'extension.', robot_state_publisher='(from the URDF)'),
    ParameterSpec(
        'publish_frequency', 20.0, 'Hz. A joint_states message\'s transforms are '
        'published only if its header stamp is at least `1000 / publish_frequency` ms '
        '(whole ms) after the stamp last published; the others still update the joint '
        'state (services, `republish_frequency`). `0`: every message.', 'settable',
        value_range=_RATE, robot_state_publisher='same; no timer, nothing re-published '
        'without a new message; `0` is accepted but undefined (1000/0 cast to an integer)'),
    ParameterSpec(
        'ignore_timestamp', False, 'Publish every joint_states message, whatever its stamp '
        '(no `publish_frequency` limit, older stamps accepted). When false, a stamp older '
        'than the newest accepted one is dropped whole as out of order.', 'settable',
        robot_state_publisher='same: every message published; when false, an older stamp '
        'is never published either (it fails the rate test)'),
    ParameterSpec(
        'frame_prefix', '', 'Prepended to every TF frame id (e.g. `left/`); the URDF is '
        'unchanged.', robot_state_publisher='same; settable at run time'),
    ParameterSpec(
        'republish_frequency', 0.0, 'Hz at which the latest moving transforms are '
        'published again, stamped now; `0`: never.', value_range=_RATE),
    ParameterSpec(
        'joint_prefix', 'J', 'Prefix of the generated joint names (`J1, J2, ...` with '
        'the default).'),
    ParameterSpec(
        'joint_names', [''], 'Explicit joint names, in HEBI joint order (default: an '
        'element\'s HRDF `tag`, else `J1, J2, ...`; not with `hebi_config`).',
        shown_default='empty'),
    ParameterSpec(
        'hebi_config', '', 'A HEBI arm config (`PATH.cfg.yaml`, or `PKG:FILE` in an '
        'installed package): its `names` are the joint names, the gripper\'s finger joint '
        'is HEBI\'s `end_effector_1/input_l_finger`, its gains bound the velocity and '
        'effort limits, its `hrdf` is the default `hrdf_file`, and `ros2_control: hebi` '
        'tells hebi_hardware its `config_pkg` and `config_file` '
        '(`hrdf_ros.export.hebi_arm`); as `hrdf urdf --hebi-config`.'),
    ParameterSpec(
        'missing_joints', 'last', 'Position of a joint absent from a joint_states message: '
        'its last value or zero (a gripper\'s finger joint always keeps its last '
        'position).', choices=MISSING_JOINT_POLICIES,
        robot_state_publisher='absent joints get no transform'),
    ParameterSpec(
        'position_limits_file', '', 'Joint limits YAML: `{joint: [lower, upper]}` (rad or '
        'm), written as URDF position limits (those joints become `revolute`), or '
        '`{joint: {lower, upper, velocity, effort}}` (`hrdf_ros.export.limits`).'),
    ParameterSpec(
        'mesh_dir', '', 'A folder with HEBI\'s mesh files, written as `file://` URIs; '
        'empty: `HRDF_ROS_MESH_DIR`, else hebi_description through the ament index '
        '(`package://` URIs), else the user cache of `hrdf meshes fetch`, else '
        'primitives (`hrdf_ros.export.mesh_sources`); the source used is logged.'),
    ParameterSpec(
        'meshes', 'auto', '`auto`: the rule of `mesh_dir`; `package`: '
        '`package://hebi_description` URIs even when it is not installed here; '
        '`primitives`: no mesh files.', choices=MESH_MODES),
    ParameterSpec(
        'hebi_meshes', False, 'Deprecated: `true` means `meshes: package`.'),
    ParameterSpec(
        'exact_masses', False, 'URDF with HEBI\'s masses only, without the physical fill '
        'simulators need (`hrdf_ros.export.inertials`; the fill is logged).'),
    ParameterSpec(
        'ros2_control', '', 'Add a `<ros2_control>` block for every movable joint to the '
        'URDF, with that hardware (`hrdf_ros.export.ros2_control`); empty: none. `hebi` '
        'also needs `hebi_config`, in a ROS package.',
        choices=('',) + tuple(HARDWARE_PLUGINS)),
    ParameterSpec(
        'gripper_joints', True, 'An X5Parallel/R8Parallel gripper gets its finger joint '
        '`gripper_joint` and mimic joints (URDF and /tf); false: one rigid end effector, '
        'as HEBI\'s library models it (`hrdf_ros.export.gripper`).'),
    ParameterSpec(
        'kinematics', 'numpy', 'Kinematics path of the FK and Jacobian services (TF has its '
        'own): `numpy`, `numba` '
        '(compiled kernels of the extra `hrdf_ros[fast]`; importing numba adds about 0.4 s '
        'to the start) or `auto` (numba when installed); `HRDF_ROS_KINEMATICS` overrides '
        'it (`hrdf_ros.kinematics.backend`). The path is logged.', choices=CHOICES),
    ParameterSpec(
        'strict', False, 'Spec deviations hebi-py accepts (a negative joint axis, ...; '
        '`hrdf_ros.hrdf.leniency`) are errors at start, on reload, in `~/load_hrdf` and '
        '`~/validate_hrdf`; by default they are logged warnings.'),
)
#: name -> :class:`ParameterSpec`
PARAMETER_SPECS: Dict[str, ParameterSpec] = {p.name: p for p in PARAMETERS}


def declare(node: Node, name: str, value: object = None):
    """Declare parameter ``name`` of :data:`PARAMETERS` on ``node``, with its default
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
                          kinematics=declare(node, 'kinematics'))
