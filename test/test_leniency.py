"""The leniency policy: what HEBI's library accepts with a clear meaning loads here too,
with a located warning carrying a code, and strict mode refuses it.

* test/deviations/: one file per deviation, its expected warnings in expected.yaml;
  each loads with exactly those warnings and hebi-py's frames, and strict mode turns
  exactly the deviations into errors (``hrdf validate --strict`` exits 1);
* negative joint axes: the same frames as the positive axis with the position negated
  (hebi-py's too), the true Jacobian (hebi-py's column has the wrong sign: pinned),
  URDF axes that give the same poses in two independent URDF libraries and xacro;
* ``mesh_path=""``, web mesh URLs in 1.3.0 files, included files of other versions;
* CRLF and CR line endings are no deviation at all (XML normalises them);
* the warning code reference of the documentation is rendered from hrdf_ros.hrdf.leniency.
"""
import glob
import importlib
import io
import os
import sys

import numpy as np
import pytest
import yaml
from urdf_parser_py.urdf import URDF

from hrdf_ros import (HrdfError, Kinematics, load, loads, to_urdf, to_xacro,
                      validate_file)
from hrdf_ros.cli import main
from hrdf_ros.description.frame_tree import build_frame_tree
from hrdf_ros.hrdf.leniency import DEVIATIONS, NOTES, WARNING_CODES, markdown_table

from conftest import KITS, REPO, kit_id
from test_hebi_differential import assert_same_model
from test_urdf import urdf_pose

CORPUS = os.path.join(REPO, 'test', 'deviations')
with open(os.path.join(CORPUS, 'expected.yaml'), encoding='utf-8') as _handle:
    EXPECTED = yaml.safe_load(_handle)
FILES = sorted(os.path.basename(p) for p in glob.glob(os.path.join(CORPUS, '*.hrdf')))
AXES = ('rx', 'ry', 'rz', 'tx', 'ty', 'tz')


def located(diagnostics):
    return sorted((d.code, os.path.normpath(d.path), d.line, d.element, d.attribute)
                  for d in diagnostics)


def expected_located(name):
    return sorted((w['code'], os.path.normpath(os.path.join(CORPUS, w.get('file', name))),
                   w['line'], w['element'], w.get('attribute'))
                  for w in EXPECTED[name]['warnings'])


def test_every_deviation_file_has_an_entry_and_every_code_a_file():
    assert sorted(EXPECTED) == FILES
    codes = {w['code'] for entry in EXPECTED.values() for w in entry['warnings']}
    assert set(DEVIATIONS) <= codes <= set(WARNING_CODES)


@pytest.mark.parametrize('name', FILES)
def test_deviation_loads_with_its_warnings_and_hebi_frames(name, hebi_import):
    path = os.path.join(CORPUS, name)
    model = load(path)
    assert located(model.warnings) == expected_located(name)
    for w in model.warnings:
        assert str(w).startswith(f'{w.path}:{w.line}:{w.column}: warning: ')
        assert str(w).endswith(f'[{w.code}]')
        if w.code in DEVIATIONS:
            assert 'hebi-py' in w.message and 'hrdf_ros does the same' in w.message
    assert_same_model(model, hebi_import[0](path), np.random.default_rng(len(name)), 10)


@pytest.mark.parametrize('name', FILES)
def test_strict_mode_refuses_each_deviation_where_it_is(name, capsys):
    path = os.path.join(CORPUS, name)
    report = validate_file(path, strict=True)
    assert not report.valid
    wanted = [w for w in expected_located(name) if w[0] in DEVIATIONS]
    assert located(report.errors) == wanted
    assert all('an error in strict mode' in e.message for e in report.errors)
    assert located(report.warnings) == [w for w in expected_located(name)
                                        if w[0] in NOTES]
    with pytest.raises(HrdfError) as info:
        load(path, strict=True)
    assert info.value.errors == report.errors
    assert main(['validate', '--strict', path]) == 1
    err = capsys.readouterr().err
    for code, file, line, *_ in wanted:
        assert any(f':{line}:' in row and ': error: ' in row and row.endswith(f'[{code}]')
                   and os.path.normpath(row.split(':')[0]) == file
                   for row in err.splitlines())
    assert main(['validate', path]) == 0


# -- negative axes --------------------------------------------------------------------
def _axis_robot(axis, gear='1'):
    return ('<robot version="1.6.0"><rigid-body mass="0.5" output_trans="0.1 0.2 0.3" '
            f'output_rot="Rx(0.3)*Ry(0.2)"/><joint axis="{axis}" gear_ratio="{gear}"/>'
            '<rigid-body mass="1" com_trans="0.05 -0.02 0.1" output_trans="0.3 -0.1 0.2" '
            'output_rot="Rz(0.4)"/><actuator type="X5-1"/><end-effector/></robot>')


@pytest.mark.parametrize('axis', AXES)
@pytest.mark.parametrize('gear', ['1', '-2.5'])
def test_negative_axis_is_the_positive_axis_with_the_position_negated(axis, gear,
                                                                      hebi_import):
    negative = loads(_axis_robot('-' + axis, gear))
    positive = loads(_axis_robot(axis, gear))
    joint = negative.elements[1]
    assert (joint.motion, joint.axis_sign, joint.motion_scale) == (axis, -1.0,
                                                                  -1 / float(gear))
    assert [w.code for w in negative.warnings] == ['negative-axis']
    q = np.random.default_rng(3).uniform(-3, 3, (12, 2))
    flipped = q * [-1, 1]
    ours = Kinematics(negative).forward_kinematics(q)
    reference = Kinematics(positive).forward_kinematics(flipped)
    for frame_type, frames in ours.items():
        np.testing.assert_allclose(frames, reference[frame_type], atol=1e-15, rtol=0)
    assert_same_model(negative, hebi_import[1](_axis_robot('-' + axis, gear)),
                      np.random.default_rng(4), 10)


def finite_difference_jacobian(kinematics, q, index=0, h=1e-6):
    """(6, dof) central differences of end effector ``index``'s pose: linear velocity and
    the angular velocity from the rotation's derivative (skew part of dR R^T)."""
    columns = []
    for k in range(len(q)):
        step = np.zeros(len(q))
        step[k] = h
        plus = kinematics.end_effector(q + step, index)
        minus = kinematics.end_effector(q - step, index)
        d = (plus - minus) / (2 * h)
        w = d[:3, :3] @ kinematics.end_effector(q, index)[:3, :3].T
        columns.append(np.concatenate([d[:3, 3], [w[2, 1], w[0, 2], w[1, 0]]]))
    return np.stack(columns, axis=1).reshape(6, len(q))


@pytest.mark.parametrize('axis', AXES)
def test_negative_axis_jacobian_is_the_true_derivative_not_hebis(axis, hebi_import):
    text = _axis_robot('-' + axis, '2')
    kinematics = Kinematics(loads(text))
    hebi = hebi_import[1](text)
    for q in np.random.default_rng(5).uniform(-3, 3, (5, 2)):
        ours = kinematics.end_effector_jacobian(q)
        np.testing.assert_allclose(ours, finite_difference_jacobian(kinematics, q),
                                   atol=1e-8, rtol=0)
        theirs = hebi.get_jacobian_end_effector(q)
        # hebi-py 2.16.1 bug, pinned: the negative-axis column (0) has the wrong sign.
        np.testing.assert_allclose(ours * [-1, 1], theirs, atol=1e-12, rtol=0)
        assert np.abs(ours[:, 0] - theirs[:, 0]).max() > 1e-3


@pytest.mark.parametrize('axis', AXES)
def test_negative_axis_urdf_gives_the_same_poses(axis, tmp_path):
    import xacro
    yourdfpy = pytest.importorskip('yourdfpy')
    model = loads(_axis_robot('-' + axis, '3'))
    tree = build_frame_tree(model)
    urdf = to_urdf(model, 'neg', tree=tree)
    robot = URDF.from_xml_string(urdf)
    sign_axis = np.zeros(3)
    sign_axis['xyz'.index(axis[1])] = -1
    assert list(robot.joint_map[tree.dof_names[0]].axis) == list(sign_axis)
    other = yourdfpy.URDF.load(io.BytesIO(urdf.encode()), build_scene_graph=True,
                               load_meshes=False, build_collision_scene_graph=False,
                               load_collision_meshes=False)
    kinematics = Kinematics(model)
    for q in np.random.default_rng(6).uniform(-2, 2, (5, 2)):
        values = {name: q[k] / model.elements[e].gear_ratio      # URDF value
                  for k, (name, e) in enumerate(zip(tree.dof_names, model.dof_elements))}
        expected = kinematics.end_effector(q)
        np.testing.assert_allclose(urdf_pose(robot, values, 'end_effector'), expected,
                                   atol=1e-12, rtol=0)
        other.update_cfg(values)
        np.testing.assert_allclose(other.get_transform('end_effector', 'base_link'),
                                   expected, atol=1e-12, rtol=0)
    source = tmp_path / 'neg.urdf.xacro'
    source.write_text(to_xacro(model, 'neg'))
    expanded = URDF.from_xml_string(xacro.process_file(str(source)).toxml())
    assert expanded.to_xml_string() == robot.to_xml_string()


@pytest.mark.parametrize('text', ['+rz', '--rz', '- rz', '-', '-rw', ' -rz', '-rz '])
def test_other_signed_axes_stay_errors(text):
    with pytest.raises(HrdfError) as info:
        loads(f'<robot version="1.6.0"><joint axis="{text}"/></robot>')
    [error] = info.value.errors
    assert error.attribute == 'axis' and 'unknown value' in error.message


def test_negative_axis_case_is_also_an_enum_case_warning():
    model = loads('<robot version="1.0.0"><joint axis="-TZ"/></robot>')
    assert [w.code for w in model.warnings] == ['enum-case', 'negative-axis']
    assert model.elements[0].motion == 'tz' and model.elements[0].axis_sign == -1


# -- meshes ----------------------------------------------------------------------------
def test_empty_mesh_path_means_no_mesh():
    model = load(os.path.join(CORPUS, 'empty_mesh_path.hrdf'))
    for element in model.elements[:2]:
        assert (element.mesh_path, element.mesh_file, element.mesh_transform) == (
            None, None, None)
    # no <mesh> element (the file's path, in a comment, may contain "mesh")
    assert '<mesh ' not in to_urdf(model)
    with pytest.raises(HrdfError) as info:   # a bad mesh_rot is still an error
        loads('<robot version="1.6.0"><rigid-body mass="1" mesh_path="" mesh_rot=""/>'
              '</robot>')
    assert [e.attribute for e in info.value.errors] == ['mesh_rot']


def test_web_mesh_url_before_1_4_is_used():
    model = load(os.path.join(CORPUS, 'mesh_url_before_1_4.hrdf'))
    assert model.elements[0].mesh_file == 'https://example.com/body.stl'
    assert 'filename="https://example.com/body.stl"' in to_urdf(model)
    with pytest.raises(HrdfError, match='no host'):
        loads('<robot version="1.3.0"><rigid-body mass="1" mesh_path="https:///x.stl"/>'
              '</robot>')


# -- includes --------------------------------------------------------------------------
def test_included_files_are_read_under_their_own_version(tmp_path):
    (tmp_path / 'old.hrdf').write_text('<robot version="1.1.0"><actuator type="X5-4"/>'
                                       '<link type="X5" extension="0.3" twist="pi/2"/>'
                                       '</robot>')
    (tmp_path / 'new.hrdf').write_text('<robot version="1.6.0"><actuator type="X5-1" '
                                       'tag="wrist"/><joint axis="rz" gear_ratio="2"/>'
                                       '<end-effector/></robot>')
    (tmp_path / 'top.hrdf').write_text('<robot version="1.3.0"><include path="old.hrdf"/>'
                                       '<include path="new.hrdf"/></robot>')
    model = load(str(tmp_path / 'top.hrdf'))
    assert model.version == (1, 3, 0)
    assert [e.kind for e in model.elements] == ['actuator', 'link', 'actuator', 'joint',
                                                'end-effector']
    assert not any(e.implicit for e in model.elements)   # none for included 1.1.0 files
    assert [(w.code, os.path.basename(w.path)) for w in model.warnings] == [
        ('include-version', 'old.hrdf'), ('include-version', 'new.hrdf')]
    # what the included file's own version forbids stays an error: a formula in 1.0.0
    (tmp_path / 'v1.hrdf').write_text('<robot version="1.0.0"><actuator type="X5-4"/>'
                                      '<link type="X5" extension="0.3" twist="pi/2"/>'
                                      '</robot>')
    (tmp_path / 'top1.hrdf').write_text('<robot version="1.6.0"><include path="v1.hrdf"/>'
                                        '</robot>')
    with pytest.raises(HrdfError, match='formulas need HRDF 1.1.0'):
        load(str(tmp_path / 'top1.hrdf'))


# -- line endings: no deviation ---------------------------------------------------------
@pytest.mark.parametrize('newline', ['\r\n', '\r'])
@pytest.mark.parametrize('path', KITS[:4], ids=kit_id)
def test_crlf_and_cr_files_load_without_warning(path, newline, tmp_path):
    with open(path, encoding='utf-8') as handle:
        text = handle.read()
    converted = tmp_path / 'robot.hrdf'
    converted.write_bytes(text.replace('\n', newline).encode('utf-8'))
    model, reference = load(str(converted)), load(path)
    assert model.warnings == [] and model.dof_count == reference.dof_count
    q = np.linspace(-1, 1, model.dof_count)
    np.testing.assert_array_equal(Kinematics(model).frames('output', q),
                                  Kinematics(reference).frames('output', q))
    rotation = loads('<robot version="1.6.0"><rigid-body mass="1" output_rot="1 0 0\r\n'
                     ' 0 1 0\r\n 0 0 1" output_trans="1\r2\r\n3"/></robot>')
    np.testing.assert_array_equal(rotation.elements[0].outputs[0][:3, 3], [1, 2, 3])


# -- the table ---------------------------------------------------------------------------
def test_codes_are_unique_and_split_into_deviations_and_notes():
    assert set(DEVIATIONS).isdisjoint(NOTES)
    assert all(w.deviation for w in DEVIATIONS.values())
    assert not any(w.deviation for w in NOTES.values())
    source = ''
    for path in glob.glob(os.path.join(REPO, 'hrdf_ros', 'hrdf', '*.py')):
        source += open(path, encoding='utf-8').read()
    for code in WARNING_CODES:        # every code is emitted somewhere
        assert f"'{code}'" in source.replace(open(
            os.path.join(REPO, 'hrdf_ros', 'hrdf', 'leniency.py')).read(), ''), code


def test_the_reference_renders_the_table_of_the_module():
    """doc/reference/leniency.md shows the codes through the docs extension's directive,
    which renders markdown_table() itself: the table is written once (test_docs_build
    builds the page and finds every code in it)."""
    page = open(os.path.join(REPO, 'doc', 'reference', 'leniency.md'), encoding='utf-8').read()
    assert '```{hrdf-leniency-codes}\n```' in page
    sys.path.insert(0, os.path.join(REPO, 'doc', '_ext'))
    try:
        hrdf_docs = importlib.import_module('hrdf_docs')
    finally:
        sys.path.pop(0)
    assert '\n'.join(hrdf_docs.leniency_markdown()) + '\n' == markdown_table()
    assert all(f'| `{code}` |' in markdown_table() for code in WARNING_CODES)
