"""HEBI arm configs without ROS: every config of hebi_description read (names, HRDF,
gains bounds, the package it sits in), located warnings and errors, the config applied
to the export (names, HEBI's gripper joint, gains limits) through the API and the
``hrdf`` command. The gains are read back here with ElementTree, independently of
hrdf_ros's reader."""
import glob
import math
import os
import shutil
import xml.etree.ElementTree as ET

import numpy as np
import pytest
import yaml
from urdf_parser_py.urdf import URDF

from hrdf_ros import HrdfError, load
from hrdf_ros.cli import main
from hrdf_ros.description.gripper import HEBI_GRIPPER_JOINT
from hrdf_ros.description.hebi_arm import hebi_arm
from hrdf_ros.hrdf.arm_config import read_arm_config
from hrdf_ros.hrdf.catalogue import ACTUATORS
from hrdf_ros.numbers import EFFORT, VELOCITY, magnitude_limit

from hebi_description import HEBI_DESCRIPTION, ament_prefix, require_hebi_description

require_hebi_description()
ARMS = os.path.join(HEBI_DESCRIPTION, 'config', 'arms')
#: Every HEBI arm config: the kits' (A-*) and the examples' (ex_*).
CONFIGS = sorted(glob.glob(os.path.join(ARMS, '*.cfg.yaml')))
KIT_CONFIGS = [p for p in CONFIGS if os.path.basename(p).startswith('A-')]
MOVABLE = ('revolute', 'continuous', 'prismatic')


def stem(path):
    return os.path.basename(path)[:-len('.cfg.yaml')]


def raw(path):
    """The config as PyYAML reads it (HEBI's own values, before any sanitising)."""
    with open(path, encoding='utf-8') as handle:
        return yaml.safe_load(handle)


def gains_bounds(path):
    """(velocity, effort) bounds per module read with ElementTree: min(max_target,
    -min_target) of each loop."""
    root = ET.parse(path).getroot()
    out = []
    for loop in ('velocity', 'effort'):
        high = [float(v) for v in root.find(f'{loop}/max_target').text.split()]
        low = [-float(v) for v in root.find(f'{loop}/min_target').text.split()]
        out.append([min(a, b) for a, b in zip(high, low)])
    return out


def test_there_are_hebi_configs():
    assert len(KIT_CONFIGS) == 21 and len(CONFIGS) > len(KIT_CONFIGS)


@pytest.mark.parametrize('path', CONFIGS, ids=stem)
def test_every_config_reads_as_hebi_wrote_it(path):
    config = read_arm_config(path)
    data = raw(path)
    assert config.path == path
    assert list(config.names) == [n.replace('"', '') for n in data['names']]
    assert config.hrdf == os.path.normpath(os.path.join(ARMS, data['hrdf']))
    assert (config.config_pkg, config.config_file) == (
        'hebi_description', f'config/arms/{os.path.basename(path)}')
    assert config.has_gripper == data.get('user_data', {}).get('has_gripper')
    default = os.path.join(ARMS, data['gains']['default'])
    if os.path.isfile(default):
        velocity, effort = gains_bounds(default)
        assert list(config.gains.velocity) == velocity
        assert list(config.gains.effort) == effort
    else:
        assert config.gains is None
        [warning] = [w for w in config.warnings if w.code == 'config-gains-missing']
        assert warning.line == 8 and default in warning.message


def test_a_stray_quote_is_dropped_with_a_located_warning_or_refused_when_strict():
    path = os.path.join(ARMS, 'A-2099-07.cfg.yaml')
    config = read_arm_config(path)
    assert config.names[1] == 'J2A_shoulder1'
    [warning] = config.warnings
    assert (warning.severity, warning.code, warning.path, warning.line, warning.column) == (
        'warning', 'config-name', path, 4, 20)
    assert str(warning).startswith(f'{path}:4:20: warning: names[1] \'J2A_shoulder1"\'')
    with pytest.raises(HrdfError) as caught:
        read_arm_config(path, strict=True)
    assert [(d.code, d.line) for d in caught.value.errors] == [('config-name', 4)]


def test_pkg_file_form_resolves_through_the_ament_index(monkeypatch):
    monkeypatch.setenv('AMENT_PREFIX_PATH', ament_prefix())
    config = read_arm_config('hebi_description:config/arms/A-2085-06G.cfg.yaml')
    assert (config.config_pkg, config.config_file) == (
        'hebi_description', 'config/arms/A-2085-06G.cfg.yaml')
    assert os.path.samefile(config.path, os.path.join(ARMS, 'A-2085-06G.cfg.yaml'))
    assert config.names == read_arm_config(os.path.join(ARMS, 'A-2085-06G.cfg.yaml')).names
    with pytest.raises(HrdfError, match='not installed here'):
        read_arm_config('no_such_pkg:config/arm.cfg.yaml')


@pytest.mark.parametrize('text,line,message', [
    ('hrdf: a.hrdf\n', 1, 'no "names"'),
    ('names: J1\n', 1, 'must be a list'),
    ('names: [a, 2]\n', 1, 'names[1] must be a string'),
    ('names: [a, "b c", a]\n', 1, "names[2] 'a' is used twice"),
    ('names: ["1st"]\n', 1, 'cannot be a joint name'),
    ('names: [a]\ngains: x.xml\n', 2, '"gains" must be a mapping'),
    ('names: [a]\nuser_data:\n  has_gripper: yes please\n', 3, 'true or false'),
    ('names: [a\n', 2, 'not YAML'),
    ('- a\n', 1, 'YAML mapping')])
def test_bad_configs_are_located_errors(tmp_path, text, line, message):
    path = tmp_path / 'arm.cfg.yaml'
    path.write_text(text)
    with pytest.raises(HrdfError) as caught:
        read_arm_config(str(path))
    errors = caught.value.errors
    assert errors and errors[-1].path == str(path) and errors[-1].line == line
    assert message in errors[-1].message


def test_a_config_in_no_package_has_no_config_pkg(tmp_path):
    (tmp_path / 'arm.cfg.yaml').write_text('names: [a]\nhrdf: robot.hrdf\n')
    config = read_arm_config(str(tmp_path / 'arm.cfg.yaml'))
    assert not config.in_package and (config.config_pkg, config.config_file) == ('', '')
    (tmp_path / 'package.xml').write_text('<package format="3"><name>my_arm</name>'
                                          '</package>')
    nested = tmp_path / 'config' / 'arm.cfg.yaml'
    nested.parent.mkdir()
    shutil.copy(tmp_path / 'arm.cfg.yaml', nested)
    config = read_arm_config(str(nested))
    assert (config.config_pkg, config.config_file) == ('my_arm', 'config/arm.cfg.yaml')


@pytest.mark.parametrize('path', KIT_CONFIGS, ids=stem)
def test_the_config_applied_names_joints_and_bounds_limits(path):
    config = read_arm_config(path)
    model = load(config.hrdf)
    arm = hebi_arm(model, config)
    urdf = URDF.from_xml_string(_urdf(arm, model).encode())
    movable = [j for j in urdf.joints if j.type in MOVABLE and j.mimic is None]
    gripper = config.has_gripper is True
    assert [j.name for j in movable] == list(config.names) + ([HEBI_GRIPPER_JOINT]
                                                              if gripper else [])
    assert arm.gripper_joint == (HEBI_GRIPPER_JOINT if gripper else '')
    bounds = gains_bounds(config.gains.path) if config.gains else None
    for k, joint in enumerate(movable[:len(config.names)]):
        spec = ACTUATORS[model.elements[model.dof_elements[k]].type]
        velocity, effort = spec.max_speed, spec.max_effort
        if bounds:   # the smaller of the module's rating and the gains' target bound
            velocity, effort = min(velocity, bounds[0][k]), min(effort, bounds[1][k])
        # as written: rounded toward zero, never above the bound (hrdf_ros.numbers)
        assert (joint.limit.velocity, joint.limit.effort) == (
            magnitude_limit(velocity, VELOCITY), magnitude_limit(effort, EFFORT))
        assert joint.limit.velocity <= velocity and joint.limit.effort <= effort


def _urdf(arm, model):
    from hrdf_ros import to_urdf
    limits, _ = arm.limits_under()
    return to_urdf(model, 'r', tree=arm.frame_tree(model), position_limits=limits)


def test_x8_9_and_x8_16_are_held_to_the_gains_velocity():
    """The issue's numbers: A-2085-06's X8-9 at 3.4 rad/s (rated 4.08), X8-16 at 1.8."""
    config = read_arm_config(os.path.join(ARMS, 'A-2085-06.cfg.yaml'))
    arm = hebi_arm(load(config.hrdf), config)
    assert arm.limits['J1_base'].velocity == 3.4 and arm.limits['J2_shoulder'].velocity == 1.8
    assert ACTUATORS['X8-9'].max_speed == pytest.approx(4.084, abs=1e-3)
    assert 'A-2085-06.xml' in arm.sources['J1_base']
    limits, sources = arm.limits_under({'J1_base': load_limit(velocity=1.0)})
    assert limits['J1_base'].velocity == 1.0 and limits['J1_base'].effort == 23.0
    assert 'J1_base' not in sources


def load_limit(**values):
    from hrdf_ros.description.limits import JointLimit
    return JointLimit(**values)


def test_configs_that_do_not_fit_the_robot_are_refused(tmp_path):
    g_config = read_arm_config(os.path.join(ARMS, 'A-2085-06G.cfg.yaml'))
    with pytest.raises(ValueError, match='6 names .* for 5 degrees'):
        hebi_arm(load(os.path.join(ARMS, 'hrdf', 'A-2085-05G.hrdf')), g_config)
    text = open(g_config.path).read().replace('has_gripper: true', 'has_gripper: false')
    path = os.path.join(str(tmp_path), 'A-2085-06G.cfg.yaml')
    open(path, 'w').write(text.replace('hrdf/', os.path.join(ARMS, 'hrdf') + '/'))
    config = read_arm_config(path)
    model = load(config.hrdf)
    with pytest.raises(ValueError, match='has_gripper is false'):
        hebi_arm(model, config)
    assert hebi_arm(model, config, gripper_joints=False).finger_joints == ()
    # a gripper config whose HRDF has no gripper: a note, no gripper joint
    arm = hebi_arm(load(os.path.join(ARMS, 'hrdf', 'A-2085-06.hrdf')), g_config)
    assert arm.finger_joints == () and 'has_gripper: true' in arm.notes[0]


def test_cli_urdf_from_the_config_alone(tmp_path, capsys):
    path = os.path.join(ARMS, 'A-2099-07G.cfg.yaml')
    out = tmp_path / 'arm.urdf'
    assert main(['urdf', '--hebi-config', path, '-o', str(out)]) == 0
    err = capsys.readouterr().err
    assert f'{path}:4:20: warning:' in err and '[config-gains-missing]' in err
    robot = URDF.from_xml_string(out.read_bytes())
    assert robot.name == 'A-2099-07G'
    assert [j.name for j in robot.joints if j.type in MOVABLE and j.mimic is None] == \
        list(read_arm_config(path).names) + [HEBI_GRIPPER_JOINT]
    # the same joints in TF: hrdf info shows the names the node would use
    assert main(['urdf', '--hebi-config', path, '--strict']) == 1
    assert 'error: names[1]' in capsys.readouterr().err


def test_cli_refuses_bad_configs_in_one_line(tmp_path, capsys):
    bad = tmp_path / 'bad.cfg.yaml'
    bad.write_text('names: [a, a]\n')
    assert main(['urdf', '--hebi-config', str(bad)]) == 1
    err = capsys.readouterr().err
    assert f'{bad}:1:' in err and 'Traceback' not in err
    assert main(['urdf', '--hebi-config', str(tmp_path / 'missing.cfg.yaml')]) == 2
    nohrdf = tmp_path / 'nohrdf.cfg.yaml'
    nohrdf.write_text('names: [a]\n')
    assert main(['moveit', '--hebi-config', str(nohrdf), '-o', str(tmp_path / 'p')]) == 2
    assert 'names no hrdf' in capsys.readouterr().err
    config = os.path.join(ARMS, 'A-2085-06.cfg.yaml')
    assert main(['urdf', os.path.join(ARMS, 'hrdf', 'A-2085-05.hrdf'), '--hebi-config',
                 config]) == 2
    assert '6 names' in capsys.readouterr().err


def test_a_users_config_is_installed_by_the_package(tmp_path, capsys):
    """A config in no ROS package: the package installs it with its HRDF and gains under
    config/hebi/ and names itself config_pkg."""
    own = tmp_path / 'my_arm'
    (own / 'hrdf').mkdir(parents=True)
    (own / 'gains').mkdir()
    shutil.copy(os.path.join(ARMS, 'hrdf', 'A-2085-06G.hrdf'), own / 'hrdf')
    shutil.copy(os.path.join(ARMS, 'gains', 'A-2085-06.xml'), own / 'gains')
    shutil.copy(os.path.join(ARMS, 'gains', 'A-2080-01.xml'), own / 'gains')
    shutil.copy(os.path.join(ARMS, 'A-2085-06G.cfg.yaml'), own / 'arm.cfg.yaml')
    out = tmp_path / 'pkg'
    assert main(['moveit', '--hebi-config', str(own / 'arm.cfg.yaml'), '-o', str(out),
                 '--collision-samples', '0']) == 0
    for relative in ('arm.cfg.yaml', 'hrdf/A-2085-06G.hrdf', 'gains/A-2085-06.xml',
                     'gains/A-2080-01.xml'):
        assert (out / 'config' / 'hebi' / relative).read_bytes() == \
            (own / relative).read_bytes()
    xacro_text = (out / 'config' / 'A-2085-06G.urdf.xacro').read_text()
    assert 'name="config_pkg" default="a_2085_06g_moveit_config"' in xacro_text
    assert 'name="config_file" default="config/hebi/arm.cfg.yaml"' in xacro_text
    # the copy reads as the original (its relative paths still hold), and from the
    # package's folder it is where the xacro says: config_pkg, config_file
    copy = read_arm_config(str(out / 'config' / 'hebi' / 'arm.cfg.yaml'))
    assert (copy.config_pkg, copy.config_file) == ('a_2085_06g_moveit_config',
                                                   'config/hebi/arm.cfg.yaml')
    assert copy.names == read_arm_config(str(own / 'arm.cfg.yaml')).names
    assert os.path.isfile(copy.hrdf) and copy.gains is not None
    assert math.isclose(copy.gains.velocity[0], 3.4)
    assert np.array_equal(copy.gains.effort, read_arm_config(
        str(own / 'arm.cfg.yaml')).gains.effort)
