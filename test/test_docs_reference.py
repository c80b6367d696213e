"""The node is what its reference says.

The node reference (doc/reference/node.md) renders three tables: PARAMETERS
(hrdf_ros.ros.parameters), TOPICS (hrdf_ros.ros.qos) and SERVICES
(hrdf_ros.ros.services). The node is built from them; here a running hrdf_ros_node (in
this process, on the bundled arm) is compared with them: every parameter declared with
the table's type, default, descriptor and run-time access, nothing declared besides
them and rclpy's own; every publisher and subscription with the table's name, type and
QoS; every service with the table's name and type. The default params file of the
launch files sets each of its parameters to the table's default. The same for
hrdf_ros_web_view's parameters and WEB_VIEW_PARAMETERS. The launch files' arguments
that set a parameter default to the table's default.
"""
import ast
import os

import defusedxml.ElementTree
import pytest
import rclpy
import yaml
from rcl_interfaces.msg import ParameterType
from rclpy.context import Context
from rclpy.parameter import Parameter

from hrdf_ros.ros.node import HrdfStatePublisher
from hrdf_ros.ros.parameter_table import PARAMETERS
from hrdf_ros.ros.qos import TOPICS
from hrdf_ros.ros.services import SERVICES
from hrdf_ros.ros.web_view import WEB_VIEW_PARAMETERS, WebView

from conftest import BUNDLED_ARM, REPO

TYPE_NAMES = {ParameterType.PARAMETER_BOOL: 'bool', ParameterType.PARAMETER_DOUBLE: 'double',
              ParameterType.PARAMETER_INTEGER: 'integer',
              ParameterType.PARAMETER_STRING: 'string',
              ParameterType.PARAMETER_STRING_ARRAY: 'string[]'}
#: declared by rclpy for every node
RCLPY_PARAMETERS = {'use_sim_time', 'start_type_description_service'}
#: given to the node here (the others keep the table's default)
GIVEN = {'hrdf_file': BUNDLED_ARM}


@pytest.fixture(scope='module')
def node():
    context = Context()
    rclpy.init(context=context)
    node = HrdfStatePublisher(context=context, parameter_overrides=[
        Parameter(name, value=value) for name, value in GIVEN.items()])
    yield node
    node.destroy_node()
    rclpy.shutdown(context=context)


def _fully_qualified(topic_name):
    return topic_name if topic_name.startswith('/') else '/' + topic_name


def _override_parameters():
    names = set()
    for topic in TOPICS:
        if topic.overrides is not None:
            entity = 'publisher' if topic.published else 'subscription'
            names |= {f'qos_overrides.{_fully_qualified(topic.name)}.{entity}.'
                      f'{kind.name.lower()}' for kind in topic.overrides.policy_kinds}
    return names


def test_parameters_are_declared_as_the_table_says(node):
    for spec in PARAMETERS:
        descriptor = node.describe_parameter(spec.name)
        assert TYPE_NAMES[descriptor.type] == spec.type_name, spec.name
        assert descriptor.description == spec.description, spec.name
        assert descriptor.read_only == (spec.access == 'read-only'), spec.name
        if spec.value_range is None:
            assert not descriptor.floating_point_range, spec.name
        else:
            bounds = descriptor.floating_point_range[0]
            assert (bounds.from_value, bounds.to_value) == spec.value_range, spec.name
        if spec.name in GIVEN:
            assert node.get_parameter(spec.name).value == GIVEN[spec.name]
        elif spec.access != 'output':
            assert node.get_parameter(spec.name).value == spec.default, spec.name


def test_no_parameter_is_missing_from_the_table(node):
    declared = set(node._parameters)
    assert declared == ({spec.name for spec in PARAMETERS} | RCLPY_PARAMETERS
                        | _override_parameters())


def test_only_the_settable_parameters_can_be_set_at_run_time(node):
    for spec in PARAMETERS:
        value = node.get_parameter(spec.name).value
        if spec.name == 'publish_frequency':
            value = 10.0
        elif spec.name == 'ignore_timestamp':
            value = not value
        result = node.set_parameters([Parameter(spec.name, value=value)])[0]
        assert result.successful == (spec.access == 'settable'), (spec.name, result.reason)
    node.set_parameters([Parameter('publish_frequency', value=20.0),
                         Parameter('ignore_timestamp', value=False)])


def test_topics_are_created_as_the_table_says(node):
    endpoints = {p.topic_name: (True, p.msg_type, p.qos_profile) for p in node.publishers
                 if p.topic_name != '/parameter_events'}
    endpoints.update({s.topic_name: (False, s.msg_type, s.qos_profile)
                      for s in node.subscriptions})
    assert set(endpoints) == {_fully_qualified(t.name) for t in TOPICS}
    for topic in TOPICS:
        published, msg_type, qos = endpoints[_fully_qualified(topic.name)]
        package = msg_type.__module__.split('.')[0]
        assert f'{package}/msg/{msg_type.__name__}' == topic.type_name
        assert published == topic.published, topic.name
        for policy in ('reliability', 'durability', 'history', 'depth'):
            assert getattr(qos, policy) == getattr(topic.qos, policy), (topic.name, policy)


def test_services_are_created_as_the_table_says(node):
    ours = {s.srv_name: s.srv_type for s in node.services if s.srv_name.startswith('~/')}
    assert ours == {service.name: service.srv_type for service in SERVICES}


def test_the_move_to_action_is_offered_as_the_reference_says(node):
    from hrdf_ros_interfaces.action import MoveTo
    text = open(os.path.join(REPO, 'doc', 'reference', 'node.md'), encoding='utf-8').read()
    assert '| `~/move_to` | {ref}`hrdf_ros_interfaces/action/MoveTo' in text
    assert node.move_to is not None and node.move_to.server._action_type is MoveTo
    assert node.move_to.action_name == node.get_parameter('trajectory_action').value


def test_the_default_params_file_keeps_the_tables_defaults():
    """config/hrdf_ros.yaml (the launch files' params_file) names only parameters of the
    table, each at the table's default: the file shows where to set them, it changes
    nothing."""
    path = os.path.join(REPO, 'config', 'hrdf_ros.yaml')
    with open(path, encoding='utf-8') as stream:
        values = yaml.safe_load(stream)['/**/hrdf_ros_node']['ros__parameters']
    defaults = {spec.name: spec.default for spec in PARAMETERS}
    assert values and set(values) <= set(defaults)
    for name, value in values.items():
        assert value == defaults[name] and type(value) is type(defaults[name]), name


def test_the_web_view_declares_its_parameters_as_its_table_says():
    """hrdf_ros_web_view: every parameter of WEB_VIEW_PARAMETERS with its type, default
    and description, none besides (its page served on a free port meanwhile)."""
    context = Context()
    rclpy.init(context=context)
    try:
        view = WebView(context=context, parameter_overrides=[Parameter('port', value=0)])
        try:
            assert set(view._parameters) == ({spec.name for spec in WEB_VIEW_PARAMETERS}
                                             | RCLPY_PARAMETERS)
            for spec in WEB_VIEW_PARAMETERS:
                descriptor = view.describe_parameter(spec.name)
                assert descriptor.description == spec.description, spec.name
                assert not descriptor.read_only, spec.name   # read at start: 'start'
                assert spec.access == 'start'
                value = view.get_parameter(spec.name).value
                assert value == (0 if spec.name == 'port' else spec.default), spec.name
        finally:
            view.shut_down()
            view.destroy_node()
    finally:
        rclpy.shutdown(context=context)


def _launch_text(value):
    """A parameter default as a launch argument writes it."""
    if isinstance(value, bool):
        return 'true' if value else 'false'
    return str(value)


def _xml_arguments(path):
    root = defusedxml.ElementTree.parse(path).getroot()
    return {arg.get('name'): (arg.get('default'), [c.get('value') for c in arg.iter('choice')])
            for arg in root.iter('arg')}


def _python_arguments(path):
    """``ARGUMENTS`` of a launch file: name -> (default, choices), read from its source
    (importing it needs the package installed in an ament prefix)."""
    tree = ast.parse(open(path, encoding='utf-8').read())
    table = next(node.value for node in tree.body if isinstance(node, ast.Assign)
                 and any(getattr(t, 'id', None) == 'ARGUMENTS' for t in node.targets))
    arguments = {}
    for key, value in zip(table.keys, table.values):
        default, _, _, choices = value.elts
        arguments[ast.literal_eval(key)] = (
            default.value if isinstance(default, ast.Constant) else None,
            ast.literal_eval(choices) or [])
    return arguments


@pytest.mark.parametrize('launch_file', ['hrdf.launch.xml', 'hrdf.launch.py'])
def test_launch_arguments_default_to_the_tables_defaults(launch_file):
    """The launch arguments that set a node parameter (hrdf_file aside: the bundled arm)
    have the table's default and choices, so a launch without them changes nothing."""
    path = os.path.join(REPO, 'launch', launch_file)
    arguments = (_xml_arguments if launch_file.endswith('.xml') else _python_arguments)(path)
    specs = {spec.name: spec for spec in PARAMETERS}
    shared = (set(arguments) & set(specs)) - {'hrdf_file'}
    assert len(shared) >= 5, shared
    for name in shared:
        default, choices = arguments[name]
        assert default == _launch_text(specs[name].default), name
        spec = specs[name]
        expected = ['true', 'false'] if isinstance(spec.default, bool) else list(spec.choices)
        assert choices == expected, name
