"""HRDF parsing: structure, catalogue resolution, offsets/overrides and located errors."""
import numpy as np
import pytest

import hrdf_ros
from hrdf_ros import HrdfError, load, loads
from hrdf_ros.hrdf.catalogue import ACTUATORS, BRACKETS, END_EFFECTORS, LINKS

from conftest import BUNDLED_ARM, KITS, kit_id


def robot(body, version='1.2.0'):
    return f'<robot version="{version}">\n{body}\n</robot>'


def errors_of(text, path='<string>'):
    with pytest.raises(HrdfError) as info:
        loads(text, path)
    return info.value.errors


@pytest.mark.parametrize('path', KITS, ids=kit_id)
def test_every_kit_parses_without_diagnostics(path):
    model = load(path)
    assert model.warnings == []
    assert model.dof_count >= 1
    assert model.frame_count('end_effector') == 1


def test_bundled_arm():
    model = load(BUNDLED_ARM)
    assert model.dof_count == 6
    assert model.description == 'hrdf_ros example 6-DoF X-series arm'
    assert [e.kind for e in model.elements].count('actuator') == 6
    assert model.elements[-1].mass == 0.1


def test_chain_structure_and_frame_counts():
    model = loads(robot('<actuator type="X5-1"/><bracket type="X5LightRight"/>'
                        '<joint axis="tz"/><rigid-body mass="1"/><end-effector/>'))
    assert [e.parent for e in model.elements] == [-1, 0, 1, 2, 3]
    assert model.dof_count == 2
    assert model.frame_count('input') == 5
    assert model.frame_count('output') == 5
    assert model.frame_count('com') == 4          # joints have no COM frame
    assert model.frame_count('end_effector') == 1
    with pytest.raises(ValueError):
        model.frame_count('mesh')


@pytest.mark.parametrize('version', ['1.0.0', '1.1.0', None])
def test_implicit_end_effector_for_old_versions(version):
    attr = '' if version is None else f' version="{version}"'
    model = loads(f'<robot{attr}><actuator type="X5-1"/><link type="X5" extension="0.3" '
                  'twist="0"/></robot>')
    assert model.elements[-1].is_end_effector and model.elements[-1].implicit
    assert model.elements[-1].parent == 1
    if version is None:
        assert model.version == (1, 0, 0)


def test_no_implicit_end_effector_from_1_2_0():
    model = loads(robot('<actuator type="X5-1"/>'))
    assert model.frame_count('end_effector') == 0


def test_catalogue_covers_the_spec_types():
    assert len(ACTUATORS) == 21 and len(BRACKETS) == 18
    assert set(LINKS) == {'X5', 'R8', 'R25', 'R25-R8'}
    assert set(END_EFFECTORS) == {'Custom', 'X5Parallel', 'R8Parallel'}


def test_offsets_and_overrides():
    base = ACTUATORS['X5-1']
    m = loads(robot('<actuator type="X5-1" mass_offset="0.1" com_trans_offset="0.1 0.2 0.3"/>'))
    assert m.elements[0].mass == pytest.approx(base.mass + 0.1, abs=1e-15)
    np.testing.assert_allclose(m.elements[0].com[:3, 3], np.add(base.com, [0.1, 0.2, 0.3]))
    m = loads(robot('<actuator type="X5-1" mass="2*0.45" com_trans="0 0 1" com_rot="Rx(0.5)" '
                    'ixx="1" iyz="2"/>'))
    e = m.elements[0]
    assert e.mass == 0.9
    np.testing.assert_array_equal(e.com[:3, 3], [0, 0, 1])
    assert e.com[1, 1] == pytest.approx(np.cos(0.5))
    assert e.inertia[0] == 1 and e.inertia[5] == 2
    assert e.inertia[1] == base.inertia[1]


def test_enum_case_mismatch_is_a_located_warning():
    model = loads(robot('<actuator type="x5-1"/>\n<link type="x5" extension="0.3" '
                        'twist="0" input="inline"/>'), 'arm.hrdf')
    warnings = model.warnings
    assert len(warnings) == 3
    assert warnings[0].line == 2 and warnings[0].element == 'actuator'
    assert warnings[0].attribute == 'type'
    assert str(warnings[0]).startswith('arm.hrdf:2:1: warning:')
    assert model.elements[0].type == 'X5-1'


ERROR_CASES = [
    # (document, line, element, attribute, message fragment)
    (robot('<actuator type="X5-99"/>'), 2, 'actuator', 'type', 'unknown value'),
    (robot('<actuator/>'), 2, 'actuator', 'type', 'missing required attribute'),
    (robot('<link type="X5" twist="0"/>'), 2, 'link', 'extension', 'missing required'),
    (robot('<link type="X5" extension="1 pi" twist="0"/>'), 2, 'link', 'extension',
     'invalid value'),
    (robot('<actuator type="X5-1" mass="1" mass_offset="0.1"/>'), 2, 'actuator',
     'mass_offset', 'cannot both'),
    (robot('<actuator type="X5-1" com_trans="0 0 0" com_trans_offset="0 0 0"/>'), 2,
     'actuator', 'com_trans_offset', 'cannot both'),
    (robot('<actuator type="X5-1" colour="red"/>'), 2, 'actuator', 'colour',
     'unknown attribute'),
    (robot('<Actuator type="X5-1"/>'), 2, 'Actuator', None, 'unknown element'),
    (robot('<rigid-body mass="-1"/>'), 2, 'rigid-body', 'mass', 'mass must be'),
    (robot('<rigid-body mass="1" com_trans="pi 0 0"/>'), 2, 'rigid-body', 'com_trans',
     'not a floating point'),
    (robot('<rigid-body mass="1" output_rot="2 0 0 0 1 0 0 0 1"/>'), 2, 'rigid-body',
     'output_rot', 'not a rotation'),
    (robot('<rigid-body mass="1" mesh_rot="Rx(1)"/>', '1.3.0'), 2, 'rigid-body', 'mesh_rot',
     'needs a "mesh_path"'),
    (robot('<joint axis="rw"/>'), 2, 'joint', 'axis', 'unknown value'),
    (robot('<actuator type="X5-1" mass_offset="0.1"/>', '1.0.0'), 2, 'actuator',
     'mass_offset', 'needs HRDF 1.1.0'),
    (robot('<link type="X5" extension="0.3" twist="pi/2"/>', '1.0.0'), 2, 'link', 'twist',
     'formulas need HRDF 1.1.0'),
    (robot('<rigid-body mass="1" output_rot="Rx(0.5)"/>', '1.0.0'), 2, 'rigid-body',
     'output_rot', 'need HRDF 1.1.0'),
    (robot('<actuator type="T5-1"/>', '1.2.0'), 2, 'actuator', 'type', 'needs HRDF 1.4.0'),
    (robot('<end-effector/>', '1.1.0'), 2, 'end-effector', None, 'needs HRDF 1.2.0'),
    (robot('<actuator type="X5-1" tag="a"/>', '1.2.0'), 2, 'actuator', 'tag',
     'needs HRDF 1.4.0'),
    (robot('<actuator type="X5-1" tag="a"/><bracket type="X5LightLeft" tag="a"/>', '1.4.0'), 2,
     'bracket', 'tag', 'already used'),
    (robot('<end-effector/><actuator type="X5-1"/>'), 2, 'actuator', None, 'cannot follow'),
    (robot('<link type="R25-R8" extension="0.1" twist="0" output="Inline"/>', '1.6.0'), 2,
     'link', 'output', 'no Inline output'),
    (robot('<joint axis="rz" gear_ratio="0"/>', '1.5.0'), 2, 'joint', 'gear_ratio',
     'must not be zero'),
    ('<robot version="2.0.0"/>', 1, 'robot', 'version', 'unsupported HRDF version'),
    ('<robt version="1.2.0"/>', 1, 'robt', None, 'root element must be <robot>'),
]


@pytest.mark.parametrize('text,line,element,attribute,fragment', ERROR_CASES)
def test_located_errors(text, line, element, attribute, fragment):
    errors = errors_of(text, 'bad.hrdf')
    first = errors[0]
    assert (first.line, first.element, first.attribute) == (line, element, attribute)
    assert fragment in first.message
    assert first.path == 'bad.hrdf'
    assert str(first).startswith(f'bad.hrdf:{line}:')


def test_all_errors_are_collected():
    text = robot('<actuator type="X5-99"/>\n<bracket type="nope"/>\n<joint axis="q"/>')
    errors = errors_of(text)
    assert [e.line for e in errors] == [2, 3, 4]


@pytest.mark.parametrize('text,fragment', [
    ('<robot version="1.2.0"><actuator type="X5-1"></robot>', 'malformed XML'),
    ('', 'malformed XML'),
    ('<?xml version="1.0"?><!DOCTYPE r [<!ENTITY a "aaaa">]><robot>&a;</robot>', 'forbidden'),
    ('<?xml version="1.0"?><!DOCTYPE r [<!ENTITY x SYSTEM "file:///etc/passwd">]>'
     '<robot>&x;</robot>', 'forbidden'),
])
def test_hostile_or_broken_xml_is_a_clean_error(text, fragment):
    errors = errors_of(text)
    assert fragment in errors[0].message


def test_deep_nesting_is_rejected_cleanly():
    text = '<robot version="1.3.0">' + '<a>' * 5000 + '</a>' * 5000 + '</robot>'
    errors = errors_of(text)
    assert 'too complex' in errors[0].message


def test_missing_file_is_an_error_naming_the_file(tmp_path):
    with pytest.raises(HrdfError) as info:
        load(tmp_path / 'nope.hrdf')
    assert 'nope.hrdf' in str(info.value) and 'cannot read' in str(info.value)


def test_public_api_exports():
    assert hrdf_ros.load is load and callable(hrdf_ros.to_urdf)
