"""The design space of ``hrdf design`` (hrdf_ros.design.space): every HEBI kit but the
double-shoulder arms (their yoke is a rigid body) is a design; read as one and written
back it is the same robot (elements, joint names, every frame at random states to
1e-12 m, masses to 1e-12 kg), and hebi-py imports the written design as it imports the
kit (frames 1e-9, masses). Robots outside the space, designs that do not fit together and
malformed designs are refused with a sentence saying what is wrong.
"""
import os

import numpy as np
import pytest

from hrdf_ros import HrdfError, Kinematics, load, loads
from hrdf_ros.design import Connector, Design, design_of
from hrdf_ros.design.kits import KITS as KIT_DESIGNS, WITH_GRIPPER, kit_designs
from hrdf_ros.design.space import FAMILIES, TWISTS, parse_design

import hebi_oracle
from conftest import KITS

YOKED = ('A-2099-07', 'A-2099-07G', 'R-Series-Double-Shoulder-7DOF',
         'X-Series-Double-Shoulder-7DOF')
DESIGNS = [k for k in KITS if os.path.basename(k)[:-5] not in YOKED]


def _name(path):
    return os.path.basename(path)[:-5]


def test_the_kits_are_here():
    assert len(DESIGNS) == 22


@pytest.mark.parametrize('path', DESIGNS, ids=_name)
def test_every_single_shoulder_kit_is_a_design_and_written_back_the_same_robot(path):
    kit = load(path)
    design = design_of(kit)
    assert len(design.actuators) == kit.dof_count
    again = loads(design.hrdf())
    assert [(e.kind, e.type, e.parent) for e in again.elements] == \
        [(e.kind, e.type, e.parent) for e in kit.elements]
    assert again.joint_names() == kit.joint_names()
    np.testing.assert_allclose(again.masses, kit.masses, atol=1e-12, rtol=0)
    ours, theirs = Kinematics(kit), Kinematics(again)
    for q in np.random.default_rng(5).uniform(-np.pi, np.pi, (6, kit.dof_count)):
        for frame_type in ('output', 'com', 'end_effector'):
            np.testing.assert_allclose(theirs.frames(frame_type, q),
                                       ours.frames(frame_type, q), atol=1e-12, rtol=0)
    assert design_of(again) == design            # the design read off its own HRDF
    assert design.model().dof_count == kit.dof_count


def test_hebi_py_imports_each_written_design_as_the_kit(tmp_path):
    jobs = []
    for n, path in enumerate(DESIGNS):
        written = tmp_path / f'{n}.hrdf'
        written.write_text(design_of(load(path)).hrdf(), encoding='utf-8')
        jobs += [(path, n, str(tmp_path / f'{n}a.npz')),
                 (str(written), n, str(tmp_path / f'{n}b.npz'))]
    results = hebi_oracle.run_all(jobs)
    for path, kit, written in zip(DESIGNS, results[::2], results[1::2]):
        assert kit['ok'] and written['ok'], (_name(path), written.get('error'))
        assert written['dof'] == kit['dof']
        np.testing.assert_allclose(written['masses'], kit['masses'], atol=1e-9,
                                   err_msg=_name(path))
        for key, value in kit['arrays'].items():
            if key.startswith('fk_'):
                np.testing.assert_allclose(written['arrays'][key], value, atol=1e-9,
                                           err_msg=f'{_name(path)} {key}')


def test_the_searchs_twists_are_written_as_multiples_of_pi():
    quarter, half = TWISTS[2:]
    design = Design(('X8-9', 'X8-16', 'X5-4', 'X5-1'),
                    (Connector('link', 'X5', 0.2, -quarter),
                     Connector('link', 'X5', 0.35, quarter),
                     Connector('link', 'X5', 0.05, half)), 'X5Parallel')
    text = design.hrdf('a test arm')
    for twist in ('"-pi/2"', '"pi/2"', '"pi"'):
        assert f'twist={twist}' in text
    assert 'extension="0.35"' in text and 'description="a test arm"' in text
    model = loads(text)
    assert model.dof_count == 4 and model.elements[-1].type == 'X5Parallel'
    assert design_of(model) == design


def test_parts_that_do_not_fit_are_the_readers_located_error():
    with pytest.raises(HrdfError, match='does not fit'):
        Design(('X5-4', 'R8-16'), (Connector('bracket', 'R8HeavyRightOutside'),)).model()
    with pytest.raises(HrdfError, match='unknown value "NoSuch"'):
        Design(('X5-4', 'X5-9'), (Connector('bracket', 'NoSuch'),)).model()


@pytest.mark.parametrize('actuators, connectors, says', [
    (('X5-4', 'X5-9'), (), '2 actuators need 1 connectors, got 0'),
    (('X5-4', 'X5-9'), (Connector('tube', 'X5'),), 'a bracket or a link'),
    (('X5-4', 'X5-9'), (Connector('link', 'X5', 2.0, 0),), 'extension in'),
    (('X5-4', 'X5-9'), (Connector('link', 'X5', 0.3, float('nan')),), 'finite twist'),
])
def test_malformed_designs_are_refused(actuators, connectors, says):
    with pytest.raises(ValueError, match=says):
        Design(actuators, connectors)


@pytest.mark.parametrize('text, says', [
    ('<actuator type="X5-4"/><link type="X5" extension="1.5" twist="0"/>'
     '<actuator type="X5-1"/>', 'outside'),
    ('<actuator type="X5-4"/><rigid-body mass="0.1" output_trans="0 0 0.1"/>'
     '<actuator type="X5-1"/>', 'element 1 is a rigid-body'),
    ('<link type="X5" extension="0.3" twist="0"/><actuator type="X5-1"/>',
     'element 0 is a link'),
    ('<actuator type="X5-4"/><link type="X5" extension="0.3" twist="0" '
     'input="Inline" output="Inline"/><actuator type="X5-1"/>', 'RightAngle link'),
])
def test_robots_outside_the_space_are_refused(text, says):
    model = loads(f'<robot version="1.6.0">{text}<end-effector/></robot>')
    with pytest.raises(ValueError, match=says):
        design_of(model)


@pytest.mark.parametrize('path', [k for k in KITS if _name(k) in YOKED], ids=_name)
def test_double_shoulder_kits_are_outside_the_space(path):
    with pytest.raises(ValueError, match='element 3 is a rigid-body'):
        design_of(load(path))


def test_the_kit_table_is_every_single_shoulder_kit_file():
    files = {_name(path): design_of(load(path)) for path in DESIGNS}
    table = dict(kit_designs(False) + kit_designs(True))
    assert {n for n in files if not n.endswith('G')} == set(KIT_DESIGNS)
    assert {n for n in files if n.endswith('G')} == {n + 'G' for n in WITH_GRIPPER}
    for name, design in files.items():
        assert table[name] == design, name
    assert kit_designs(True)[1][0] == 'A-2085-03 + X5Parallel'


@pytest.mark.parametrize('name', sorted(KIT_DESIGNS))
def test_a_design_line_reads_back(name):
    design = KIT_DESIGNS[name]
    assert parse_design(design.text()) == design
    assert design.family.name == {'X': 'X', 'R': 'R', 'T': 'T'}[design.actuators[0][0]]


def test_families_hold_the_catalogues_actuators_lightest_first():
    assert FAMILIES['X'].actuators == ('X5-1', 'X5-4', 'X5-9', 'X8-3', 'X8-9', 'X8-16')
    assert FAMILIES['R'].actuators == ('R8-3', 'R8-9', 'R8-16')
    assert FAMILIES['T'].brackets == FAMILIES['R'].brackets and len(FAMILIES['T'].brackets) == 6
    for word in ('X5-4 X5:0.3 X5-1', 'X5-4 X5:a:pi X5-1'):
        with pytest.raises(ValueError, match='series:extension:twist'):
            parse_design(word)
    with pytest.raises(ValueError, match='4 words'):
        parse_design('X5-4 X5LightRight X5-1 X5LightRight')
