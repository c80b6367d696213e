"""ros2_control for any robot: the ``<ros2_control>`` block of its movable joints.

In: the URDF (or ``hrdf urdf --xacro``) text, or a list of joint names, and the hardware
to drive them. Out: the same document with a ``<ros2_control>`` block
(:func:`add_ros2_control`), or a xacro macro file that chooses the hardware by argument
(:func:`ros2_control_xacro`, used by the MoveIt config package).

Hardware (:data:`HARDWARE_PLUGINS`):

* ``mock``: ``mock_components/GenericSystem`` (ros2_control's mock hardware: commands
  are echoed as states);
* ``gazebo``: ``gz_ros2_control/GazeboSimSystem``, plus the ``<gazebo>`` element loading
  ``gz_ros2_control-system`` (``gz_ros2_control::GazeboSimROS2ControlPlugin``) with the
  controller parameter file, when one is given;
* ``hebi``: HEBI's ``hebi_hardware/HEBIHardwareInterface``, with the ``<param>`` s its
  ``on_init`` reads (HebiRobotics/hebi_hardware, src/hebi_hardware_interface.cpp):
  ``config_pkg`` and ``config_file`` (required: a HEBI robot config YAML, e.g.
  hebi_description ``config/arms/A-2085-06.cfg.yaml``, found in that package's share
  directory) and ``gripper_joint_name`` (optional: one of the joints).

Every joint gets command interfaces ``position`` and ``velocity`` and state interfaces
``position``, ``velocity`` and ``effort``, as HEBI's hardware interface exports; the
position state starts at ``initial_value`` (0 unless given).

URDF ``<mimic>`` joints (a parallel gripper's, :mod:`hrdf_ros.description.gripper`) are not
commanded: ros2_control (Jazzy, Kilted) refuses command interfaces on them, and computes their
``position`` and ``velocity`` states from the joint they follow when they are listed
with state interfaces only, which is how gz_ros2_control enforces mimic joints in Gazebo
and mock_components mirrors them. They are listed so for ``mock`` and ``gazebo``; for
``hebi`` they are left out, as hebi_hardware expects exactly its arm's joints plus the
gripper joint (``gripper_joint_name``; its count check, src/hebi_hardware_interface.cpp),
which defaults to the joint the mimic joints follow when there is exactly one.
hebi_hardware reports that joint as the gripper's spool fraction times 0.365 pi rad but
takes its position command as the fraction itself (clamped to 0..1).
"""
from __future__ import annotations

import xml.etree.ElementTree as ET
from dataclasses import dataclass, replace
from typing import List, Mapping, Optional, Sequence, Tuple

import defusedxml.ElementTree as SafeET

from ..description.hebi_arm import HebiArm
from ..numbers import POSITION, num
from .urdf_structure import parse_urdf

#: Hardware name -> ros2_control hardware plugin.
HARDWARE_PLUGINS = {
    'mock': 'mock_components/GenericSystem',
    'gazebo': 'gz_ros2_control/GazeboSimSystem',
    'hebi': 'hebi_hardware/HEBIHardwareInterface',
}
#: Per ROS distribution: (ros2_controllers controller type, its package (an exec_depend of
#: the MoveIt config package), MoveIt simple controller manager handler type).
GRIPPER_CONTROLLERS = {
    'jazzy': ('position_controllers/GripperActionController', 'gripper_controllers',
              'GripperCommand'),
    'kilted': ('parallel_gripper_action_controller/GripperActionController',
               'parallel_gripper_controller', 'ParallelGripperCommand'),
}
#: The distribution the package is made for unless told (HEBI's driver branch: jazzy).
DEFAULT_ROS_DISTRO = 'jazzy'
COMMAND_INTERFACES = ('position', 'velocity')
STATE_INTERFACES = ('position', 'velocity', 'effort')
#: State interfaces of a mimic joint (ros2_control computes both).
MIMIC_STATE_INTERFACES = ('position', 'velocity')
#: gz_ros2_control's Gazebo system plugin: (filename, name).
GAZEBO_PLUGIN = ('gz_ros2_control-system', 'gz_ros2_control::GazeboSimROS2ControlPlugin')
XACRO_NS = 'http://www.ros.org/wiki/xacro'


@dataclass(frozen=True)
class Ros2ControlOptions:
    """What drives the joints.

    Attributes:
        hardware: ``mock``, ``gazebo`` or ``hebi``.
        hebi_config_pkg: ROS package holding the HEBI robot config (``hebi``).
        hebi_config_file: that config, relative to the package's share directory.
        hebi_gripper_joint: joint HEBI's interface drives as the gripper, or ``''``.
        gazebo_parameters: controller parameter file for gz_ros2_control (``gazebo``),
            or ``''`` for none.
        name: the ``<ros2_control name>`` (default ``<robot name>_system``).
    """

    hardware: str = 'mock'
    hebi_config_pkg: str = ''
    hebi_config_file: str = ''
    hebi_gripper_joint: str = ''
    gazebo_parameters: str = ''
    name: str = ''

    def check(self, joints: Sequence[str]) -> None:
        """Raise ValueError for an unknown hardware, a HEBI setup without its config, or a
        gripper joint that is not one of ``joints``."""
        if self.hardware not in HARDWARE_PLUGINS:
            raise ValueError(f'ros2_control hardware must be one of '
                             f'{", ".join(HARDWARE_PLUGINS)}, got "{self.hardware}"')
        if self.hardware == 'hebi' and not (self.hebi_config_pkg and self.hebi_config_file):
            raise ValueError('hebi hardware needs a HEBI arm config: --hebi-config '
                             'PATH.cfg.yaml or PKG:FILE, e.g. '
                             'hebi_description:config/arms/A-2085-06.cfg.yaml (hebi_hardware '
                             'config_pkg, config_file)')
        if self.hebi_gripper_joint and self.hebi_gripper_joint not in joints:
            raise ValueError(f'gripper joint "{self.hebi_gripper_joint}" is not one of '
                             f'{", ".join(joints)}')


def hebi_arm_options(hebi: HebiArm, hardware: str = 'hebi', config_pkg: str = '',
                     config_file: str = '') -> Ros2ControlOptions:
    """ros2_control options naming a HEBI arm config (``config_pkg``/``config_file``:
    the config's own unless given, e.g. by a package that installs the config) and its
    gripper joint.

    Raises:
        ValueError: ``hebi`` hardware for a config in no ROS package (hebi_hardware
            finds configs only through a package) and none given.
    """
    package = config_pkg or hebi.config.config_pkg
    relative = config_file or hebi.config.config_file
    if hardware == 'hebi' and not package:
        raise ValueError(f'{hebi.config.path} is in no ROS package (no package.xml '
                         'above it), and hebi_hardware finds its config through one: '
                         'put it in a package, or let hrdf moveit install it')
    return Ros2ControlOptions(hardware, package, relative, hebi.gripper_joint)


def _param(parent: ET.Element, name: str, value: str) -> None:
    ET.SubElement(parent, 'param', {'name': name}).text = value


def _joint(parent: ET.Element, name: str, initial: str, mimic: bool = False) -> None:
    joint = ET.SubElement(parent, 'joint', {'name': name})
    for interface in () if mimic else COMMAND_INTERFACES:
        ET.SubElement(joint, 'command_interface', {'name': interface})
    for interface in MIMIC_STATE_INTERFACES if mimic else STATE_INTERFACES:
        state = ET.SubElement(joint, 'state_interface', {'name': interface})
        if interface == 'position':
            _param(state, 'initial_value', initial)


def default_gripper_joint(mimic_joints: Mapping[str, Tuple[str, float, float]]) -> str:
    """The joint the mimic joints follow when it is one joint, else ``''``."""
    sources = {source for source, _, _ in mimic_joints.values()}
    return sources.pop() if len(sources) == 1 else ''


def ros2_control_elements(joints: Sequence[str], options: Ros2ControlOptions,
                          robot_name: str = 'robot',
                          initial_positions: Optional[Mapping[str, float]] = None,
                          prefix: str = '',
                          mimic_joints: Optional[Mapping[str, Tuple[str, float, float]]]
                          = None) -> List[ET.Element]:
    """The ``<ros2_control>`` element (and for Gazebo the ``<gazebo>`` one).

    Args:
        joints: the commanded joint names, in order (rad or m positions).
        options: the hardware.
        robot_name: for the default system name.
        initial_positions: ``{joint: position}``; missing joints start at 0.
        prefix: prepended to every joint name and the system name (``${prefix}`` inside
            a xacro macro).
        mimic_joints: ``{joint: (followed joint, multiplier, offset)}`` of the URDF's
            mimic joints, listed with state interfaces only (not for ``hebi``).

    Raises:
        ValueError: as :meth:`Ros2ControlOptions.check`.
    """
    options.check(joints)
    mimic_joints = dict(mimic_joints or {})
    if options.hardware == 'hebi' and not options.hebi_gripper_joint:
        options = replace(options, hebi_gripper_joint=default_gripper_joint(mimic_joints))
    initial = dict(initial_positions or {})
    system = ET.Element('ros2_control', {'name': prefix + (options.name
                                                           or f'{robot_name}_system'),
                                         'type': 'system'})
    hardware = ET.SubElement(system, 'hardware')
    ET.SubElement(hardware, 'plugin').text = HARDWARE_PLUGINS[options.hardware]
    if options.hardware == 'hebi':
        _param(hardware, 'config_pkg', options.hebi_config_pkg)
        _param(hardware, 'config_file', options.hebi_config_file)
        if options.hebi_gripper_joint:
            _param(hardware, 'gripper_joint_name', prefix + options.hebi_gripper_joint)
    for joint in joints:
        _joint(system, prefix + joint, num(initial.get(joint, 0.0), POSITION))
    if options.hardware != 'hebi':
        for joint, (source, multiplier, offset) in mimic_joints.items():
            value = multiplier * float(initial.get(source, 0.0)) + offset
            _joint(system, prefix + joint, num(value, POSITION), mimic=True)
    out = [system]
    if options.hardware == 'gazebo':
        gazebo = ET.Element('gazebo')
        plugin = ET.SubElement(gazebo, 'plugin', {'filename': GAZEBO_PLUGIN[0],
                                                  'name': GAZEBO_PLUGIN[1]})
        if options.gazebo_parameters:
            ET.SubElement(plugin, 'parameters').text = options.gazebo_parameters
        out.append(gazebo)
    return out


def _parse_keeping_comments(text: str) -> ET.Element:
    parser = SafeET.DefusedXMLParser(target=ET.TreeBuilder(insert_comments=True))
    try:
        parser.feed(text)
        return parser.close()
    except ET.ParseError as exc:
        raise ValueError(f'not XML: {exc}') from None


def add_ros2_control(text: str, options: Ros2ControlOptions) -> str:
    """Add a ``<ros2_control>`` block for every movable joint to a URDF, or to the macro of
    a ``to_xacro`` file (joint names then carry ``${prefix}``); mimic joints as the module
    docstring says.

    Args:
        text: URDF text, or xacro text from :func:`~hrdf_ros.export.urdf.to_xacro`.
        options: the hardware.

    Returns:
        The document with the block appended to the robot (or the macro).

    Raises:
        ValueError: not a URDF, or invalid options (:meth:`Ros2ControlOptions.check`).
    """
    root = _parse_keeping_comments(text)
    macro = root.find(f'{{{XACRO_NS}}}macro')
    if macro is not None:
        expanded = ET.Element('robot', {'name': root.get('name', '')})
        expanded.extend(c for c in macro if isinstance(c.tag, str) and c.tag in ('link',
                                                                                'joint'))
        for node in expanded.iter():
            for key in ('name', 'link'):
                if node.get(key, '').startswith('${prefix}'):
                    node.set(key, node.get(key)[len('${prefix}'):])
        for node in expanded.iter('mimic'):
            if node.get('joint', '').startswith('${prefix}'):
                node.set('joint', node.get('joint')[len('${prefix}'):])
        structure = parse_urdf(ET.tostring(expanded, encoding='unicode'))
        target, prefix = macro, '${prefix}'
    else:
        structure = parse_urdf(text)
        target, prefix = root, ''
    joints = [j.name for j in structure.joints if j.is_active]
    mimic = {j.name: j.mimic for j in structure.joints if j.is_movable and j.mimic}
    target.extend(ros2_control_elements(joints, options, root.get('name', 'robot'),
                                        prefix=prefix, mimic_joints=mimic))
    ET.register_namespace('xacro', XACRO_NS)
    ET.indent(root, space='  ')
    return '<?xml version="1.0" encoding="utf-8"?>\n' + ET.tostring(root, encoding='unicode') \
        + '\n'


def _xacro(parent: ET.Element, tag: str, attributes) -> ET.Element:
    return ET.SubElement(parent, f'{{{XACRO_NS}}}{tag}', attributes)


def ros2_control_xacro(macro_name: str, joints: Sequence[str],
                       mimic_joints: Sequence[str] = (), gripper_joint: str = '') -> str:
    """A xacro file defining macro ``macro_name`` that adds the ``<ros2_control>`` block
    of ``joints`` (commanded) and ``mimic_joints`` (state interfaces only, not with
    ``hebi`` hardware: see the module docstring).

    Macro parameters, as HEBI's kit macros (hebi_description
    ``urdf/kits/ros2_control``) take them: ``name`` (system name), ``prefix`` (before
    every joint name), ``use_mock_hardware`` (true: ``mock``), ``sim_gazebo`` (true,
    with ``use_mock_hardware`` false: ``gazebo``; both false: ``hebi``),
    ``config_pkg`` and ``config_file`` (hebi_hardware's HEBI arm config), plus
    ``initial_positions_file`` (YAML with ``initial_positions: {joint: value}``, relative
    to the including file; unprefixed names) and ``gazebo_parameters`` (controller file
    for gz_ros2_control). ``gripper_joint`` (unprefixed) becomes hebi_hardware's
    ``gripper_joint_name``. Processing fails with a message for ``hebi`` without a
    config.
    """
    ET.register_namespace('xacro', XACRO_NS)
    root = ET.Element('robot')
    root.append(ET.Comment(' Generated by hrdf_ros: ros2_control of every movable joint; '
                           'the hardware: use_mock_hardware (mock), else sim_gazebo '
                           '(gazebo), else hebi_hardware with config_pkg/config_file. '))
    macro = _xacro(root, 'macro', {
        'name': macro_name,
        'params': ("name initial_positions_file prefix:='' use_mock_hardware:=true "
                   "sim_gazebo:=false config_pkg:='' config_file:='' gazebo_parameters:=''")})
    _xacro(macro, 'property', {
        'name': 'initial_positions',
        'value': "${xacro.load_yaml(initial_positions_file)['initial_positions']}"})
    hebi = '${not (use_mock_hardware or sim_gazebo)}'
    check = _xacro(macro, 'if', {
        'value': "${not (use_mock_hardware or sim_gazebo) and "
                 "(config_pkg == '' or config_file == '')}"})
    check.text = ("${xacro.fatal('hebi_hardware (use_mock_hardware:=false) needs a HEBI arm "
                  "config: config_pkg and config_file')}")
    system = ET.SubElement(macro, 'ros2_control', {'name': '${name}', 'type': 'system'})
    hardware = ET.SubElement(system, 'hardware')
    for kind, condition in (('mock', '${use_mock_hardware}'),
                            ('gazebo', '${sim_gazebo and not use_mock_hardware}'),
                            ('hebi', hebi)):
        branch = _xacro(hardware, 'if', {'value': condition})
        ET.SubElement(branch, 'plugin').text = HARDWARE_PLUGINS[kind]
        if kind == 'hebi':
            _param(branch, 'config_pkg', '${config_pkg}')
            _param(branch, 'config_file', '${config_file}')
            if gripper_joint:
                _param(branch, 'gripper_joint_name', '${prefix}' + gripper_joint)
    for joint in joints:
        _joint(system, '${prefix}' + joint, f"${{initial_positions['{joint}']}}")
    if mimic_joints:
        followers = _xacro(system, 'unless', {'value': hebi})
        for joint in mimic_joints:
            _joint(followers, '${prefix}' + joint, f"${{initial_positions['{joint}']}}",
                   mimic=True)
    gazebo = _xacro(macro, 'if', {'value': '${sim_gazebo and not use_mock_hardware}'})
    plugin = ET.SubElement(ET.SubElement(gazebo, 'gazebo'), 'plugin', {
        'filename': GAZEBO_PLUGIN[0], 'name': GAZEBO_PLUGIN[1]})
    parameters = _xacro(plugin, 'if', {'value': "${gazebo_parameters != ''}"})
    ET.SubElement(parameters, 'parameters').text = '${gazebo_parameters}'
    ET.indent(root, space='  ')
    return '<?xml version="1.0" encoding="utf-8"?>\n' + ET.tostring(root, encoding='unicode') \
        + '\n'
