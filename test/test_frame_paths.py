"""One-frame fast path (serial chains), tree output order and lookup by tag, vs hebi-py."""

import numpy as np
import pytest

from hrdf_ros import Kinematics, load, loads
from hrdf_ros.kinematics.batch import MAX_CHUNK as CHUNK

from conftest import HEBI_FRAME_TYPES, KITS, kit_id
from conftest import HEXAPOD_18 as HEXAPOD

# A small tree: a rigid body with two outputs, each carrying a chain; tags on every element.
TREE = ('<robot version="1.4.0" rot="Rx(0.3)" trans="0.1 0 0.2">'
        '<rigid-body mass="1" tag="body">'
        '<output trans="1 0 0"><actuator type="X5-1" tag="a"/>'
        '<link type="X5" extension="0.5" twist="0.4" tag="l1"/></output>'
        '<output trans="0 2 0"><actuator type="X8-9" tag="b"/><joint axis="ty" tag="slide"/>'
        '<bracket type="X5LightLeft" tag="br"/><actuator type="X5-4" tag="c"/>'
        '<end-effector tag="tool"/></output></rigid-body></robot>')
TAGS = ['body', 'a', 'l1', 'b', 'slide', 'br', 'c', 'tool']
GEARED = ('<robot version="1.5.0"><joint axis="tx" gear_ratio="3"/>'
          '<joint axis="ry" gear_ratio="-2"/><actuator type="X5-1"/><joint axis="tz"/>'
          '<rigid-body mass="1" output_trans="0.1 0.2 0.3"/><end-effector/></robot>')


def every_frame(model):
    return [(t, i) for t in HEBI_FRAME_TYPES for i in range(model.frame_count(t))]


@pytest.mark.parametrize('path', KITS, ids=kit_id)
def test_end_effector_fast_path_matches_hebi(path, hebi_import):
    import_from_hrdf, _ = hebi_import
    model, hebi = load(path), import_from_hrdf(path)
    kin = Kinematics(model)
    q = np.random.default_rng(8).uniform(-np.pi, np.pi, (100, model.dof_count))
    expected_fk = np.stack([hebi.get_end_effector(x) for x in q])
    expected_jac = np.stack([hebi.get_jacobian_end_effector(x) for x in q])
    assert np.max(np.abs(kin.end_effector(q) - expected_fk)) <= 1e-9
    assert np.max(np.abs(kin.end_effector_jacobian(q) - expected_jac)) <= 1e-9
    for x, fk, jac in zip(q[:10], expected_fk, expected_jac):
        assert np.max(np.abs(kin.end_effector(x) - fk)) <= 1e-9
        assert np.max(np.abs(kin.end_effector_jacobian(x) - jac)) <= 1e-9


@pytest.mark.parametrize('text', [TREE, GEARED], ids=['tree', 'geared_prismatic'])
def test_every_frame_fast_path_matches_hebi(text, hebi_import):
    _, import_string = hebi_import
    model, hebi = loads(text), import_string(text)
    kin = Kinematics(model)
    q = np.random.default_rng(9).uniform(-2, 2, (20, model.dof_count))
    for frame_type, index in every_frame(model):
        hebi_type = HEBI_FRAME_TYPES[frame_type]
        fk = np.stack([hebi.get_forward_kinematics_mat(hebi_type, x)[index] for x in q])
        jac = np.stack([hebi.get_jacobians_mat(hebi_type, x)[index] for x in q])
        label = f'{frame_type}[{index}]'
        assert np.max(np.abs(kin.frame(frame_type, index, q) - fk)) <= 1e-9, label
        assert np.max(np.abs(kin.frame_jacobian(frame_type, index, q) - jac)) <= 1e-9, label
        assert np.max(np.abs(kin.frame(frame_type, index, q[3]) - fk[3])) <= 1e-9, label
        assert np.max(np.abs(kin.frame_jacobian(frame_type, index, q[3]) - jac[3])) <= 1e-9


def test_tree_output_frames_in_hebi_order(hebi_import):
    _, import_string = hebi_import
    model, hebi = loads(TREE), import_string(TREE)
    q = np.random.default_rng(10).uniform(-2, 2, model.dof_count)
    ours = Kinematics(model).forward_kinematics(q)
    for frame_type, hebi_type in HEBI_FRAME_TYPES.items():
        np.testing.assert_allclose(ours[frame_type],
                                   hebi.get_forward_kinematics_mat(hebi_type, q),
                                   atol=1e-9, rtol=0)
    # the body's second output comes after the whole subtree on its first output
    assert model.output_frames[:4] == [(0, 0), (1, 0), (2, 0), (0, 1)]


def test_lookup_by_tag_matches_hebi(hebi_import):
    _, import_string = hebi_import
    model, hebi = loads(TREE), import_string(TREE)
    hebi_types = {'input': 'input', 'output': 'output', 'com': 'com',
                  'end_effector': 'endeffector'}
    for tag in TAGS:
        element = model.element_index(tag)
        assert element == hebi.get_element_idx_by_tag(tag)
        for frame_type, hebi_type in hebi_types.items():
            expected = hebi.get_frame_idx_from_element_idx(element, hebi_type)
            if expected < 0:
                with pytest.raises(KeyError, match=f'has no {frame_type} frame'):
                    model.frame_index(element, frame_type)
            else:
                assert model.frame_index(element, frame_type) == expected, (tag, frame_type)


def test_lookup_errors():
    model = loads(TREE)
    with pytest.raises(KeyError, match="no element has tag 'nope'"):
        model.element_index('nope')   # hebi-py returns element 0 here
    with pytest.raises(IndexError):
        model.frame_index(99, 'input')
    with pytest.raises(ValueError):
        model.frame_index(0, 'mesh')


def test_batches_across_chunk_boundaries_equal_single_calls():
    model = loads(TREE)
    kin = Kinematics(model)
    q = np.random.default_rng(11).uniform(-3, 3, (CHUNK + 5, model.dof_count))
    frames = kin.end_effector(q)
    jacobians = kin.end_effector_jacobian(q)
    reference_frames = kin.frames('end_effector', q)[:, 0]
    reference_jacobians = kin.jacobians('end_effector', q)[:, 0]
    np.testing.assert_allclose(frames, reference_frames, atol=1e-12, rtol=0)
    np.testing.assert_allclose(jacobians, reference_jacobians, atol=1e-12, rtol=0)
    for i in (0, CHUNK - 1, CHUNK, CHUNK + 4):
        np.testing.assert_allclose(kin.end_effector(q[i]), frames[i], atol=1e-12, rtol=0)
        np.testing.assert_allclose(kin.end_effector_jacobian(q[i]), jacobians[i],
                                   atol=1e-12, rtol=0)


def test_frame_index_errors():
    kin = Kinematics(loads(TREE))
    q = np.zeros(kin.dof_count)
    with pytest.raises(IndexError, match='out of range'):
        kin.frame('output', 99, q)
    with pytest.raises(IndexError):
        kin.frame('com', -1, q)
    with pytest.raises(ValueError, match='unknown frame type'):
        kin.frame('mesh', 0, q)
    with pytest.raises(ValueError, match='finite'):
        kin.frame_jacobian('output', 0, np.full(kin.dof_count, np.nan))
    with pytest.raises(ValueError, match='finite'):
        kin.end_effector(np.full((3, kin.dof_count), np.inf))
    # a huge but finite configuration is not mistaken for a non-finite one
    assert np.isfinite(kin.end_effector(np.full(kin.dof_count, 1e200))).all()




def test_tree_with_six_end_effectors(hebi_import):
    """On a tree with several end effectors, hebi-py 2.16.1's end-effector Jacobians
    are wrong (the last leg's Jacobian lands in slot 0 and the others are zero; off by
    1.0 from finite differences). Ours equal hebi-py's output-frame Jacobians at the
    end-effector frames, and central differences of FK."""
    import_from_hrdf, _ = hebi_import
    model, hebi = load(HEXAPOD), import_from_hrdf(HEXAPOD)
    kin = Kinematics(model)
    ee_slots = [model.frame_index(e, 'output') for e, el in enumerate(model.elements)
                if el.is_end_effector]
    assert len(ee_slots) == 6 and model.dof_count == 18
    for q in np.random.default_rng(16).uniform(-2, 2, (5, model.dof_count)):
        ours = kin.jacobians('end_effector', q)
        expected = hebi.get_jacobians_mat('output', q)[ee_slots]
        assert np.max(np.abs(ours - expected)) <= 1e-9
        np.testing.assert_allclose(kin.frames('end_effector', q),
                                   hebi.get_forward_kinematics_mat('EndEffector', q),
                                   atol=1e-9, rtol=0)
        h = 1e-6
        steps = np.eye(model.dof_count) * h
        difference = np.stack([(kin.frames('end_effector', q + s)[:, :3, 3]
                                - kin.frames('end_effector', q - s)[:, :3, 3]) / (2 * h)
                               for s in steps], axis=-1)
        np.testing.assert_allclose(ours[:, :3], difference, atol=1e-6, rtol=0)
        for e in range(6):
            np.testing.assert_allclose(kin.end_effector_jacobian(q, index=e), ours[e],
                                       atol=1e-12, rtol=0)
