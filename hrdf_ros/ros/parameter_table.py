"""The node's parameters as one table: name, default (and so type), range or choices,
whether it can be set at run time, meaning, and what robot_state_publisher does.

In: nothing (constants). Out: :data:`PARAMETERS`, from which :mod:`.parameters`
declares every parameter of ``hrdf_ros_node`` (default value and ``ParameterDescriptor``)
and the documentation's node reference renders its table; :class:`ParameterSpec`, the
form ``hrdf_ros_web_view``'s table shares.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Dict, Optional, Tuple

from rcl_interfaces.msg import FloatingPointRange, IntegerRange, ParameterDescriptor

from ..parts.mesh_sources import MESH_MODES
from ..export.ros2_control import HARDWARE_PLUGINS
from ..kinematics.backend import CHOICES
from .joint_input import MISSING_JOINT_POLICIES
from .servo_settings import COMMAND_OUT_TOPICS

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
        '(`hrdf_ros.description.hebi_arm`); as `hrdf urdf --hebi-config`.'),
    ParameterSpec(
        'missing_joints', 'last', 'Position of a joint absent from a joint_states message: '
        'its last value or zero (a gripper\'s finger joint always keeps its last '
        'position).', choices=MISSING_JOINT_POLICIES,
        robot_state_publisher='absent joints get no transform'),
    ParameterSpec(
        'position_limits_file', '', 'Joint limits YAML: `{joint: [lower, upper]}` (rad or '
        'm), written as URDF position limits (those joints become `revolute`), or '
        '`{joint: {lower, upper, velocity, effort}}` (`hrdf_ros.description.limits`).'),
    ParameterSpec(
        'mesh_dir', '', 'A folder with HEBI\'s mesh files, written as `file://` URIs; '
        'empty: `HRDF_ROS_MESH_DIR`, else hebi_description through the ament index '
        '(`package://` URIs), else the user cache of `hrdf meshes fetch`, else '
        'primitives (`hrdf_ros.parts.mesh_sources`); the source used is logged.'),
    ParameterSpec(
        'meshes', 'auto', '`auto`: the rule of `mesh_dir`; `package`: '
        '`package://hebi_description` URIs even when it is not installed here; '
        '`primitives`: no mesh files.', choices=MESH_MODES),
    ParameterSpec(
        'hebi_meshes', False, 'Deprecated: `true` means `meshes: package`.'),
    ParameterSpec(
        'exact_masses', False, 'URDF with HEBI\'s masses only, without the physical fill '
        'simulators need (`hrdf_ros.description.inertials`; the fill is logged).'),
    ParameterSpec(
        'ros2_control', '', 'Add a `<ros2_control>` block for every movable joint to the '
        'URDF, with that hardware (`hrdf_ros.export.ros2_control`); empty: none. `hebi` '
        'also needs `hebi_config`, in a ROS package.',
        choices=('',) + tuple(HARDWARE_PLUGINS)),
    ParameterSpec(
        'gripper_joints', True, 'An X5Parallel/R8Parallel gripper gets its finger joint '
        '`gripper_joint` and mimic joints (URDF and /tf); false: one rigid end effector, '
        'as HEBI\'s library models it (`hrdf_ros.description.gripper`).'),
    ParameterSpec(
        'kinematics', 'numpy', 'Kinematics path of the FK, Jacobian, IK and gravity '
        'services (TF has its own): `numpy`, `numba` '
        '(compiled kernels of the extra `hrdf_ros[fast]`; importing numba adds about 0.4 s '
        'to the start) or `auto` (numba when installed); `HRDF_ROS_KINEMATICS` overrides '
        'it (`hrdf_ros.kinematics.backend`). The path is logged. The planning services '
        '(and `~/solve_ik` with `avoid_collisions`) use `auto`: their planner is built '
        'on the first request, and its IK restarts need the speed.', choices=CHOICES),
    ParameterSpec(
        'ik_timeout', 0.05, 's: how long `~/solve_ik` searches when a request gives no '
        'timeout (a request may ask for up to 1 s). The numpy path takes about 30 us per '
        'step, the compiled one 1 us (`hrdf_ros.kinematics.ik_solver`).',
        value_range=(1e-4, 1.0)),
    ParameterSpec(
        'collision_objects', '', 'Collision objects YAML (`hrdf plan --collision-objects`\'s '
        'schema: boxes, spheres, cylinders, floors, in the reference frame) that the '
        'planning services (`~/plan_motion`, `~/plan_cartesian_path`, `~/solve_ik` with '
        '`avoid_collisions`) avoid, read at start (inside `allowed_directories` when that '
        'is set); `~/set_collision_objects` replaces them. Empty: none.'),
    ParameterSpec(
        'default_velocity_scaling_factor', 0.1, 'Share of the joints\' velocity limits '
        'a planning request with `max_velocity_scaling_factor: 0` is timed to '
        '(MoveIt\'s parameter of the same name and default).', value_range=(1e-3, 1.0)),
    ParameterSpec(
        'default_acceleration_scaling_factor', 0.1, 'Share of the joints\' acceleration '
        'limits for `max_acceleration_scaling_factor: 0` (MoveIt\'s parameter of the '
        'same name and default).', value_range=(1e-3, 1.0)),
    ParameterSpec(
        'default_planning_time', 5.0, 's: the cap on `~/plan_motion`\'s search (against '
        'a hang: the search itself is bounded by counts, so the same request gives the '
        'same plan) when a request gives no `planning_time` (a request may ask for up to '
        '60 s); MoveIt\'s default allowed_planning_time.',
        value_range=(1e-3, 5.0)),
    ParameterSpec(
        'trajectory_action', 'arm_controller/follow_joint_trajectory', 'The arm\'s '
        'joint_trajectory_controller action (control_msgs/action/FollowJointTrajectory) '
        'that `~/move_to` sends its motions to, resolved in the node\'s namespace as '
        'MoveIt resolves a controller\'s: the default is the controller `hrdf moveit` '
        'packages (and their `--hebi-config` bringup) run for the planning group `arm`.'),
    ParameterSpec(
        'servo.enabled', False, 'Run the servo: MoveIt Servo\'s `~/delta_twist_cmds`, '
        '`~/delta_joint_cmds` and `~/pose_target_cmds` in, the arm controller\'s command '
        'out every `servo.publish_period`, `~/status`, `~/switch_command_type` and '
        '`~/pause_servo` (`hrdf_ros.ros.servo_interface`; launch argument `servo:=true`). '
        'Needs control_msgs and moveit_msgs (`make env` builds both).'),
    ParameterSpec(
        'servo.command_out_type', 'forward_position', '`forward_position`: '
        'std_msgs/Float64MultiArray of URDF joint positions in the arm\'s joint order, for a '
        'forward position controller; `joint_trajectory`: a one-point '
        'trajectory_msgs/JointTrajectory (positions and velocities, one period ahead) for '
        'joint_trajectory_controller\'s topic. MoveIt Servo\'s `command_out_type` has '
        '`trajectory_msgs/JointTrajectory` and `std_msgs/Float64MultiArray`.',
        choices=tuple(COMMAND_OUT_TOPICS)),
    ParameterSpec(
        'servo.command_out_topic', '', 'Where the servo\'s commands go; empty: '
        '`/forward_position_controller/commands` for `forward_position`, '
        '`/arm_controller/joint_trajectory` for `joint_trajectory` (the controllers '
        '`hrdf moveit` writes).', shown_default='by command_out_type'),
    ParameterSpec(
        'servo.publish_period', 0.001, 's between the servo\'s steps and commands '
        '(MoveIt Servo\'s `publish_period`; 1 kHz here).', value_range=(1e-4, 0.1)),
    ParameterSpec(
        'servo.incoming_command_timeout', 0.1, 's after which a twist or a joint jog '
        'without a duration no longer counts: the arm comes to rest (MoveIt Servo\'s).',
        value_range=(1e-3, 10.0)),
    ParameterSpec(
        'servo.lower_singularity_threshold', 17.0, 'Condition number of the part of the '
        'Jacobian the arm can do from which a twist slows (MoveIt Servo\'s).',
        value_range=(1.0, 1e6)),
    ParameterSpec(
        'servo.hard_stop_singularity_threshold', 30.0, 'Condition number at which it halts '
        '(MoveIt Servo\'s); above `servo.lower_singularity_threshold`.',
        value_range=(1.0, 1e6)),
    ParameterSpec(
        'servo.self_collision_proximity_threshold', 0.01, 'm: the robot\'s links halt this '
        'far apart (MoveIt Servo\'s).', value_range=(1e-4, 1.0)),
    ParameterSpec(
        'servo.scene_collision_proximity_threshold', 0.02, 'm: the robot halts this far from '
        'the collision objects and the floor (MoveIt Servo\'s).', value_range=(1e-4, 1.0)),
    ParameterSpec(
        'strict', False, 'Spec deviations hebi-py accepts (a negative joint axis, ...; '
        '`hrdf_ros.hrdf.leniency`) are errors at start, on reload, in `~/load_hrdf` and '
        '`~/validate_hrdf`; by default they are logged warnings.'),
)
#: name -> :class:`ParameterSpec`
PARAMETER_SPECS: Dict[str, ParameterSpec] = {p.name: p for p in PARAMETERS}
