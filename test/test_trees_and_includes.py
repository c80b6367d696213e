"""Trees (``<output>``) and ``<include>`` (HRDF 1.3.0+), against hebi-py where it can judge.

hebi-py 2.16.1 loads includes (relative to the including file) and trees, so the hexapod
and the small trees are compared with it frame by frame. Where the spec and hebi-py
disagree (outputs defaulting to the parent's ``output_rot``/``output_trans``: FORMAT.md's
own example, which hebi-py rejects), the default form is compared against hebi-py on an
equivalent file that spells every output out.
"""
import os
import re

import numpy as np
import pytest

from hrdf_ros import HrdfError, Kinematics, load, loads
from hrdf_ros.hrdf import includes as hrdf_includes
from hrdf_ros.hrdf import reader as hrdf_reader
from hrdf_ros.hrdf.validation import validate_file, validate_text

from conftest import HEXAPOD, HEXAPOD_DIR
from test_hebi_differential import assert_same_model



def write(directory, name, text):
    path = os.path.join(str(directory), name)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, 'w', encoding='utf-8') as handle:
        handle.write(text)
    return path


def only_error(text=None, path=None, **kwargs):
    report = validate_file(path) if path else validate_text(text, **kwargs)
    assert not report.valid
    assert len(report.errors) == 1, [str(d) for d in report.errors]
    return report.errors[0]


# -- the hexapod: a rigid-body body, six outputs, two included leg files ----------------
def test_hexapod_structure():
    model = load(HEXAPOD)
    assert model.warnings == []
    assert model.dof_count == 18
    assert model.frame_count('end_effector') == 6
    body = model.elements[0]
    assert body.kind == 'rigid-body' and body.tag == 'body' and len(body.outputs) == 6
    legs = [i for i, e in enumerate(model.elements) if e.parent == 0]
    assert [model.elements[i].parent_output for i in legs] == [0, 1, 2, 3, 4, 5]
    files = [os.path.relpath(e.path, HEXAPOD_DIR) for e in model.elements]
    assert files.count('hexapod.hrdf') == 1
    assert files.count(os.path.join('legs', 'left_leg.hrdf')) == 3 * 6
    assert files.count(os.path.join('legs', 'right_leg.hrdf')) == 3 * 6
    assert files.count(os.path.join('parts', 'foot.hrdf')) == 6
    brackets = [e.type for e in model.elements if e.kind == 'bracket']
    assert brackets == ['X5HeavyLeftInside'] * 3 + ['X5HeavyRightInside'] * 3


def test_hexapod_matches_hebi(hebi_import):
    import_from_hrdf, _ = hebi_import
    assert_same_model(load(HEXAPOD), import_from_hrdf(HEXAPOD), np.random.default_rng(18),
                      configurations=100)


def test_hexapod_equals_its_hand_flattened_text():
    """Include = textual replacement of the <include> by the included <robot>'s content."""
    def content(path):
        text = open(path, encoding='utf-8').read()
        body = re.search(r'<robot[^>]*>(.*)</robot>', text, re.S).group(1)
        here = os.path.dirname(path)
        return re.sub(r'<include path="([^"]+)"/>',
                      lambda m: content(os.path.join(here, m.group(1))), body)

    flat = f'<robot version="1.6.0">{content(HEXAPOD)}</robot>'
    assert '<include' not in flat
    ours, flattened = load(HEXAPOD), loads(flat)
    q = np.random.default_rng(5).uniform(-3, 3, (20, 18))
    a, b = Kinematics(ours).forward_kinematics(q), Kinematics(flattened).forward_kinematics(q)
    for key in a:
        np.testing.assert_array_equal(a[key], b[key])
    np.testing.assert_array_equal(ours.masses, flattened.masses)


# -- small trees vs hebi-py --------------------------------------------------------------
TREES = {
    'rigid_body_explicit_outputs': (
        '<robot version="1.3.0"><actuator type="X5-1"/>'
        '<rigid-body mass="1" com_trans="0.1 0 0">'
        '<output rot="Rz(1)" trans="0.1 0.2 0"><bracket type="X5LightLeft"/>'
        '<actuator type="X5-1"/><end-effector/></output>'
        '<output trans="0 1 0"><actuator type="X5-4"/>'
        '<rigid-body mass="0.2"><output/><output rot="Rx(0.2)"><joint axis="ty"/>'
        '<end-effector/></output></rigid-body></output>'
        '<output/></rigid-body></robot>'),
    'bracket_output': (
        '<robot version="1.3.0"><actuator type="X5-1"/><bracket type="X5HeavyRightOutside">'
        '<output><actuator type="X5-9"/><end-effector type="X5Parallel"/></output>'
        '</bracket></robot>'),
    'nested_rigid_bodies': (
        '<robot version="1.6.0" rot="Ry(0.4)" trans="0 0 1"><rigid-body mass="3">'
        '<output trans="0.3 0 0" rot="Rz(pi/3)"><rigid-body mass="1">'
        '<output rot="Rx(0.1)"><actuator type="R25-20"/><bracket type="R25LightRight"/>'
        '<actuator type="T25-8"/><link type="R25-R8" extension="0.2" twist="1"/>'
        '<actuator type="T5-4"/><end-effector type="R8Parallel"/></output>'
        '<output trans="0 0 0.1"><actuator type="T8-16"/><link type="R8" '
        'extension="0.3" twist="pi/2" input="Inline"/><actuator type="R8-9"/>'
        '<end-effector output_trans="0 0 0.1"/></output></rigid-body></output>'
        '<output trans="-0.3 0 0"><joint axis="tz" gear_ratio="4"/><end-effector/></output>'
        '</rigid-body></robot>'),
}


@pytest.mark.parametrize('name', sorted(TREES))
def test_tree_matches_hebi(name, hebi_import):
    _, import_string = hebi_import
    text = TREES[name]
    assert_same_model(loads(text), import_string(text), np.random.default_rng(1))


def _spelled_out(rot, trans):
    return (f'<robot version="1.3.0"><rigid-body mass="0.5" com_trans="0.25 0 0">'
            f'<output rot="{rot[0]}" trans="{trans[0]}"><actuator type="X5-1"/></output>'
            f'<output rot="{rot[1]}" trans="{trans[1]}"><actuator type="X8-3"/></output>'
            f'<output rot="{rot[2]}" trans="{trans[2]}"/>'
            '</rigid-body></robot>')


def test_outputs_default_to_the_parents_output_rot_and_trans(hebi_import):
    """FORMAT.md's own multi-output example: outputs default to output_rot/output_trans.

    hebi-py 2.16.1 rejects output_rot/output_trans next to <output> children, so hebi-py
    judges the same robot with every output spelled out.
    """
    _, import_string = hebi_import
    spec_example = ('<robot version="1.3.0">'
                    '<rigid-body mass="0.5" com_trans="0.25 0 0" output_rot="Rx(pi)" '
                    'output_trans="0.1 0.2 0.3">'
                    '<output rot="Rx(pi/4)" trans="0.5 0 0"><actuator type="X5-1"/></output>'
                    '<output trans="1.5 0 0"><actuator type="X8-3"/></output>'
                    '<output/></rigid-body></robot>')
    with pytest.raises(Exception, match='cannot contain both output element attribute'):
        import_string(spec_example)
    explicit = _spelled_out(('Rx(pi/4)', 'Rx(pi)', 'Rx(pi)'),
                            ('0.5 0 0', '1.5 0 0', '0.1 0.2 0.3'))
    assert_same_model(loads(spec_example), import_string(explicit), np.random.default_rng(2))


def test_outputs_without_parent_defaults_are_identity(hebi_import):
    _, import_string = hebi_import
    text = ('<robot version="1.3.0"><rigid-body mass="0.5" com_trans="0.25 0 0">'
            '<output rot="Rz(0.3)"><actuator type="X5-1"/></output>'
            '<output trans="0 0 1"><actuator type="X8-3"/></output><output/>'
            '</rigid-body></robot>')
    model = loads(text)
    np.testing.assert_array_equal(model.elements[0].outputs[1][:3, :3], np.eye(3))
    np.testing.assert_array_equal(model.elements[0].outputs[2], np.eye(4))
    assert_same_model(model, import_string(text), np.random.default_rng(3))


def test_output_chain_and_plain_chain_are_the_same_robot():
    """FORMAT.md: <bracket><output>chain</output></bracket> == <bracket/>chain."""
    chain = '<actuator type="X5-1"/><end-effector/>'
    nested = loads(f'<robot version="1.3.0"><actuator type="X5-4"/>'
                   f'<bracket type="X5LightLeft"><output>{chain}</output></bracket></robot>')
    flat = loads(f'<robot version="1.3.0"><actuator type="X5-4"/>'
                 f'<bracket type="X5LightLeft"/>{chain}</robot>')
    q = [0.3, -1.2]
    a, b = Kinematics(nested).forward_kinematics(q), Kinematics(flat).forward_kinematics(q)
    for key in a:
        np.testing.assert_array_equal(a[key], b[key])


# -- include semantics -----------------------------------------------------------------
LEG = ('<?xml version="1.0"?>\n<robot version="1.3.0">\n<actuator type="X5-1"/>\n'
       '<bracket type="X5LightLeft"/>\n<actuator type="X5-4"/>\n</robot>\n')


def test_include_continues_the_chain_and_ignores_included_root_attributes(tmp_path):
    write(tmp_path, 'parts/leg.hrdf', LEG.replace('<robot version="1.3.0">',
                                                  '<robot version="1.3.0" trans="1 2 3">'))
    main = write(tmp_path, 'main.hrdf',
                 '<robot version="1.3.0">\n<include path="parts/leg.hrdf"/>\n'
                 '<bracket type="X5LightRight"/>\n<end-effector/>\n</robot>')
    model = load(main)
    assert [e.kind for e in model.elements] == ['actuator', 'bracket', 'actuator', 'bracket',
                                                'end-effector']
    assert [e.parent for e in model.elements] == [-1, 0, 1, 2, 3]
    np.testing.assert_array_equal(model.base_frame, np.eye(4))
    # The ignored attribute is a located warning in the included file.
    [warning] = model.warnings
    assert warning.path == str(tmp_path / 'parts' / 'leg.hrdf')
    assert (warning.line, warning.element, warning.attribute) == (2, 'robot', 'trans')
    assert 'ignored' in warning.message and f'{main}:2' in warning.message


def test_include_relative_to_the_including_file_and_dotdot(tmp_path):
    write(tmp_path, 'a/leg.hrdf', LEG)
    write(tmp_path, 'b/mid.hrdf', '<robot version="1.3.0"><include path="../a/leg.hrdf"/>'
                                  '</robot>')
    main = write(tmp_path, 'main.hrdf', '<robot version="1.3.0"><include path="b/mid.hrdf"/>'
                                        '<end-effector/></robot>')
    model = load(main)
    assert model.dof_count == 2
    assert model.elements[0].path == str(tmp_path / 'a' / 'leg.hrdf')


def test_same_file_included_twice_is_not_a_cycle(tmp_path):
    write(tmp_path, 'leg.hrdf', LEG)
    main = write(tmp_path, 'main.hrdf',
                 '<robot version="1.3.0"><rigid-body mass="1"><output><include path="leg.hrdf"/>'
                 '</output><output><include path="leg.hrdf"/></output></rigid-body></robot>')
    assert load(main).dof_count == 4


def test_errors_in_an_included_file_name_that_file_and_line(tmp_path):
    write(tmp_path, 'leg.hrdf', LEG.replace('X5-4', 'X5-99'))
    main = write(tmp_path, 'main.hrdf', '<robot version="1.3.0">\n\n<include path="leg.hrdf"/>'
                                        '</robot>')
    error = only_error(path=main)
    assert error.path == str(tmp_path / 'leg.hrdf')
    assert (error.line, error.column, error.element, error.attribute) == (5, 1, 'actuator',
                                                                         'type')
    assert f'included from {main}:3' in error.message
    assert str(error).startswith(f'{tmp_path / "leg.hrdf"}:5:1: error: <actuator>')


def test_error_in_a_file_included_several_times_is_reported_once(tmp_path):
    write(tmp_path, 'leg.hrdf', LEG.replace('X5-4', 'X5-99'))
    main = write(tmp_path, 'main.hrdf',
                 '<robot version="1.3.0"><rigid-body mass="1"><output><include path="leg.hrdf"/>'
                 '</output><output><include path="leg.hrdf"/></output></rigid-body></robot>')
    only_error(path=main)


def test_interface_checked_across_the_include_boundary(tmp_path):
    write(tmp_path, 'leg.hrdf', LEG)
    main = write(tmp_path, 'main.hrdf', '<robot version="1.3.0">\n<actuator type="X5-9"/>\n'
                                        '<include path="leg.hrdf"/></robot>')
    error = only_error(path=main)
    assert error.path == str(tmp_path / 'leg.hrdf') and error.line == 3
    assert 'X-AH-A' in error.message and 'X-AO-A' in error.message
    assert f'{main}:2' in error.message  # the parent, in the other file


def test_nothing_follows_an_included_end_effector(tmp_path):
    write(tmp_path, 'tool.hrdf', '<robot version="1.3.0">\n<end-effector/></robot>')
    main = write(tmp_path, 'main.hrdf', '<robot version="1.3.0"><include path="tool.hrdf"/>\n'
                                        '<actuator type="X5-1"/></robot>')
    error = only_error(path=main)
    assert error.line == 2 and 'cannot follow <end-effector>' in error.message


def test_include_in_text_resolves_against_base_dir(tmp_path):
    write(tmp_path, 'leg.hrdf', LEG)
    text = '<robot version="1.3.0"><include path="leg.hrdf"/></robot>'
    model = loads(text, path='robot.hrdf', base_dir=str(tmp_path))
    assert model.dof_count == 2
    assert model.elements[0].path == str(tmp_path / 'leg.hrdf')
    error = only_error(text)
    assert 'includes need a base directory' in error.message
    assert (error.element, error.attribute, error.line) == ('include', 'path', 1)


def test_include_depth_is_bounded(tmp_path):
    depth = hrdf_includes.MAX_INCLUDE_DEPTH + 3
    for k in range(depth):
        write(tmp_path, f'f{k}.hrdf', f'<robot version="1.3.0"><include path="f{k + 1}.hrdf"/>'
                                      '</robot>')
    write(tmp_path, f'f{depth}.hrdf', LEG)
    error = only_error(path=str(tmp_path / 'f0.hrdf'))
    assert 'nested deeper than' in error.message


def test_include_fan_out_is_bounded(tmp_path):
    """Each file includes the next twice: 2^20 expansions without a bound."""
    for k in range(20):
        write(tmp_path, f'f{k}.hrdf', '<robot version="1.3.0"><rigid-body mass="1">'
              + f'<output><include path="f{k + 1}.hrdf"/></output>' * 2
              + '</rigid-body></robot>')
    write(tmp_path, 'f20.hrdf', '<robot version="1.3.0"><rigid-body mass="1"/></robot>')
    with pytest.raises(HrdfError, match='robot too complex'):
        load(tmp_path / 'f0.hrdf')


def test_tree_depth_is_bounded_across_includes(tmp_path, monkeypatch):
    """Nested outputs split over files: no file is deep, the robot is."""
    levels = 40  # 40 files x 2 output levels each > MAX_TREE_DEPTH
    for k in range(levels):
        write(tmp_path, f'f{k}.hrdf', '<robot version="1.3.0"><rigid-body mass="1"><output>'
              f'<rigid-body mass="1"><output><include path="f{k + 1}.hrdf"/></output>'
              '</rigid-body></output></rigid-body></robot>')
    write(tmp_path, f'f{levels}.hrdf', LEG)
    monkeypatch.setattr(hrdf_includes, 'MAX_INCLUDE_DEPTH', 100)
    with pytest.raises(HrdfError, match='nested deeper than 64 levels'):
        load(tmp_path / 'f0.hrdf')


def test_include_of_a_fifo_or_device_does_not_hang(tmp_path):
    os.mkfifo(tmp_path / 'pipe.hrdf')
    main = write(tmp_path, 'main.hrdf', '<robot version="1.3.0"><include path="pipe.hrdf"/>'
                                        '</robot>')
    assert 'not a regular file' in only_error(path=main).message


# -- mesh attributes -------------------------------------------------------------------
def test_mesh_attributes_are_kept_on_the_element(tmp_path):
    write(tmp_path, 'meshes/body.stl', 'solid body\nendsolid body\n')
    main = write(tmp_path, 'robot.hrdf',
                 '<robot version="1.4.0"><rigid-body mass="1" mesh_path="meshes/body.stl" '
                 'mesh_rot="Rz(pi/2)" mesh_trans="0 0 0.1"/>'
                 '<rigid-body mass="1" mesh_path="https://example.com/m/arm.dae"/>'
                 '<rigid-body mass="1"/></robot>')
    model = load(main)
    assert model.warnings == []
    body, web, plain = model.elements
    assert body.mesh_path == 'meshes/body.stl'
    assert body.mesh_file == str(tmp_path / 'meshes' / 'body.stl')
    np.testing.assert_allclose(body.mesh_transform[:3, 3], [0, 0, 0.1])
    np.testing.assert_allclose(body.mesh_transform[:3, :3],
                               [[0, -1, 0], [1, 0, 0], [0, 0, 1]], atol=1e-7)
    assert web.mesh_file == web.mesh_path == 'https://example.com/m/arm.dae'
    np.testing.assert_array_equal(web.mesh_transform, np.eye(4))
    assert plain.mesh_path is None and plain.mesh_transform is None


def test_missing_mesh_file_is_a_warning(tmp_path):
    main = write(tmp_path, 'robot.hrdf', '<robot version="1.3.0">\n<rigid-body mass="1" '
                                         'mesh_path="../meshes/none.stl"/></robot>')
    report = validate_file(main)
    assert report.valid
    [warning] = report.warnings
    assert (warning.line, warning.attribute) == (2, 'mesh_path')
    assert 'not found' in warning.message


def test_hebi_accepts_the_mesh_robot_too(hebi_import, tmp_path):
    _, import_string = hebi_import
    text = ('<robot version="1.4.0"><actuator type="X5-1"/><rigid-body mass="1" '
            'mesh_path="https://example.com/m.stl" mesh_rot="Rx(1)" output_trans="0 0 1"/>'
            '<end-effector/></robot>')
    assert_same_model(loads(text), import_string(text), np.random.default_rng(4), 5)



def test_hexapod_urdf_matches_hebi_at_every_foot(hebi_import):
    """frames.py/urdf.py need no change for trees and includes: the URDF of the hexapod
    puts all six feet where hebi-py does."""
    from urdf_parser_py.urdf import URDF

    from hrdf_ros import to_urdf
    from hrdf_ros.description.frame_tree import build_frame_tree
    from test_urdf import urdf_pose

    import_from_hrdf, _ = hebi_import
    model = load(HEXAPOD)
    tree = build_frame_tree(model)
    robot = URDF.from_xml_string(to_urdf(model, 'hexapod'))
    assert tree.end_effector_links == [f'end_effector{k}' for k in range(1, 7)]
    hebi = import_from_hrdf(HEXAPOD)
    for q in np.random.default_rng(12).uniform(-np.pi, np.pi, (5, 18)):
        expected = hebi.get_forward_kinematics_mat('EndEffector', q)
        for k, link in enumerate(tree.end_effector_links):
            pose = urdf_pose(robot, dict(zip(tree.dof_names, q)), link)
            np.testing.assert_allclose(pose, expected[k], atol=1e-9, rtol=0)


def test_errors_inside_outputs_of_a_broken_element_are_still_collected():
    report = validate_text('<robot version="1.3.0">\n<rigid-body mass="heavy">\n<output>\n'
                           '<actuator type="X5-99"/>\n</output>\n</rigid-body>\n</robot>')
    assert [(d.line, d.attribute) for d in report.errors] == [(2, 'mass'), (4, 'type')]


def test_misplaced_elements_are_reported_once_per_chain():
    report = validate_text('<robot version="1.2.0">\n<end-effector/>\n<actuator type="X5-1"/>\n'
                           '<bracket type="X5LightLeft"/>\n<actuator type="X5-1"/>\n</robot>')
    [error] = report.errors
    assert error.line == 3 and 'cannot follow <end-effector> (line 2)' in error.message


def test_worst_case_nesting_needs_little_python_stack(tmp_path):
    """The deepest robot the limits allow (64 output levels over 17 nested files) parses
    with a few hundred stack frames to spare: a hostile file cannot exhaust the stack."""
    import inspect
    import sys

    files = hrdf_includes.MAX_INCLUDE_DEPTH + 1
    per_file = hrdf_reader.MAX_TREE_DEPTH // files + 1
    levels = 0
    for k in range(files):
        n = min(per_file, hrdf_reader.MAX_TREE_DEPTH - levels)
        levels += n
        inner = (f'<include path="f{k + 1}.hrdf"/>' if k + 1 < files else
                 '<actuator type="X5-1"/><end-effector/>')
        write(tmp_path, f'f{k}.hrdf', '<robot version="1.3.0">'
              + '<rigid-body mass="1"><output>' * n + inner
              + '</output></rigid-body>' * n + '</robot>')
    assert levels == hrdf_reader.MAX_TREE_DEPTH
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(len(inspect.stack()) + 400)
    try:
        model = load(tmp_path / 'f0.hrdf')
    finally:
        sys.setrecursionlimit(limit)
    assert len(model.elements) == levels + 2


def test_nested_include_notes_name_the_whole_chain(tmp_path):
    write(tmp_path, 'parts/broken.hrdf', '<robot version="1.3.0">\n<actuator type="X5-1">\n'
                                         '</robot>')
    write(tmp_path, 'parts/leg.hrdf', LEG.replace('</robot>', '<include path="broken.hrdf"/>'
                                                               '\n</robot>'))
    main = write(tmp_path, 'main.hrdf', '<robot version="1.3.0">\n<include path="parts/leg.hrdf"/>'
                                        '</robot>')
    error = only_error(path=main)
    assert error.path == str(tmp_path / 'parts' / 'broken.hrdf') and error.line == 3
    assert f'included from {tmp_path / "parts" / "leg.hrdf"}:6, {main}:2' in error.message
