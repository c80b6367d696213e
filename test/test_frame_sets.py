"""The compiled kinematics (structure, FrameSet, batch, JointPoses): every code path agrees.

One configuration (FrameSet), batches across chunk boundaries (batch), one frame alone
and every frame at once give the same frames and Jacobians, on a chain, a tree, geared
and prismatic joints and a robot without joints; Jacobians equal central differences;
the workspace is per thread; the node's quaternion kinematics equal dof_transforms.
"""
import threading

import numpy as np
import pytest

from hrdf_ros import Kinematics, load, loads
from hrdf_ros.kinematics import batch, batch_jacobians
from hrdf_ros.kinematics.joint_poses import JointPoses
from hrdf_ros.kinematics.rotations import quaternion_to_rotation
from hrdf_ros.kinematics.structure import FRAME_TYPES

from conftest import BUNDLED_ARM, HEBI_FRAME_TYPES
from conftest import HEXAPOD_18 as HEXAPOD

GEARED = ('<robot version="1.5.0"><joint axis="tx" gear_ratio="3"/>'
          '<joint axis="ry" gear_ratio="-2"/><actuator type="X5-1"/><joint axis="tz"/>'
          '<rigid-body mass="1" output_trans="0.1 0.2 0.3"/><end-effector/></robot>')
# A tree whose trunk moves: a joint, then a body with two branches (not all joints move
# every frame, and the joints of one branch are not contiguous with the trunk's).
BRANCHED = ('<robot version="1.4.0" rot="Ry(0.2)" trans="0 0 0.5">'
            '<actuator type="X8-9"/><rigid-body mass="1">'
            '<output trans="0.2 0 0"><actuator type="X5-1"/><link type="X5" extension="0.3"'
            ' twist="0.5"/><actuator type="X5-4"/><end-effector/></output>'
            '<output trans="0 0.2 0" rot="Rx(1)"><joint axis="ty"/><actuator type="X5-9"/>'
            '<end-effector/></output></rigid-body></robot>')
NO_JOINTS = ('<robot version="1.4.0"><rigid-body mass="1" output_trans="0 0 1"/>'
             '<link type="X5" extension="0.3" twist="0"/><end-effector/></robot>')
ROBOTS = {'arm': lambda: load(BUNDLED_ARM), 'hexapod': lambda: load(HEXAPOD),
          'geared': lambda: loads(GEARED), 'branched': lambda: loads(BRANCHED),
          'no_joints': lambda: loads(NO_JOINTS)}


@pytest.fixture(params=list(ROBOTS), scope='module')
def robot(request):
    model = ROBOTS[request.param]()
    return model, Kinematics(model)


@pytest.fixture
def small_chunks(monkeypatch):
    """Chunks of 7 configurations, so that batches span several, the last one partial."""
    monkeypatch.setattr(batch, 'MIN_CHUNK', 7)
    monkeypatch.setattr(batch, 'MAX_CHUNK', 7)


def positions(model, n, seed=0):
    return np.random.default_rng(seed).uniform(-2.5, 2.5, (n, model.dof_count))


def test_single_batch_and_one_frame_agree(robot, small_chunks):
    model, kin = robot
    q = positions(model, 23)
    every = kin.forward_kinematics(q)
    for frame_type in FRAME_TYPES:
        count = model.frame_count(frame_type)
        frames, jacobians = kin.frames(frame_type, q), kin.jacobians(frame_type, q)
        assert frames.shape == (23, count, 4, 4)
        assert jacobians.shape == (23, count, 6, model.dof_count)
        np.testing.assert_allclose(every[frame_type], frames, atol=1e-13, rtol=0)
        np.testing.assert_array_equal(frames[..., 3, :],
                                      np.broadcast_to([0, 0, 0, 1], (23, count, 4)))
        for i in (0, 6, 7, 22):
            np.testing.assert_allclose(kin.frames(frame_type, q[i]), frames[i],
                                       atol=1e-13, rtol=0)
            np.testing.assert_allclose(kin.jacobians(frame_type, q[i]), jacobians[i],
                                       atol=1e-13, rtol=0)
        for index in range(count):
            np.testing.assert_allclose(kin.frame(frame_type, index, q), frames[:, index],
                                       atol=1e-13, rtol=0)
            np.testing.assert_allclose(kin.frame_jacobian(frame_type, index, q),
                                       jacobians[:, index], atol=1e-13, rtol=0)
            np.testing.assert_allclose(kin.frame(frame_type, index, q[5]), frames[5, index],
                                       atol=1e-13, rtol=0)
            np.testing.assert_allclose(kin.frame_jacobian(frame_type, index, q[5]),
                                       jacobians[5, index], atol=1e-13, rtol=0)


def test_jacobians_equal_central_differences(robot):
    model, kin = robot
    h = 1e-6
    for q in positions(model, 3, seed=1):
        for frame_type in ('output', 'com'):
            frames = kin.frames(frame_type, q)
            expected = np.zeros(frames.shape[:1] + (6, model.dof_count))
            for k in range(model.dof_count):
                step = np.zeros(model.dof_count)
                step[k] = h
                plus, minus = kin.frames(frame_type, q + step), kin.frames(frame_type, q - step)
                expected[:, :3, k] = (plus[:, :3, 3] - minus[:, :3, 3]) / (2 * h)
                omega = (plus[:, :3, :3] - minus[:, :3, :3]) / (2 * h) @ \
                    frames[:, :3, :3].transpose(0, 2, 1)
                expected[:, 3:, k] = np.stack([omega[:, 2, 1], omega[:, 0, 2],
                                               omega[:, 1, 0]], axis=1)
            np.testing.assert_allclose(kin.jacobians(frame_type, q), expected,
                                       atol=1e-6, rtol=0)


def test_branched_tree_matches_hebi(hebi_import):
    _, import_string = hebi_import
    model, hebi = loads(BRANCHED), import_string(BRANCHED)
    kin = Kinematics(model)
    for q in positions(model, 10, seed=2):
        for frame_type, hebi_type in HEBI_FRAME_TYPES.items():
            if frame_type == 'end_effector':
                continue        # hebi-py 2.16.1 is wrong for several end effectors
            np.testing.assert_allclose(kin.frames(frame_type, q),
                                       hebi.get_forward_kinematics_mat(hebi_type, q),
                                       atol=1e-9, rtol=0)
            np.testing.assert_allclose(kin.jacobians(frame_type, q),
                                       hebi.get_jacobians_mat(hebi_type, q), atol=1e-9, rtol=0)


def test_robot_without_joints_has_frames_and_empty_jacobians():
    model = loads(NO_JOINTS)
    kin = Kinematics(model)
    assert model.dof_count == 0
    n = model.frame_count('output')
    assert kin.frames('output', []).shape == (n, 4, 4)
    assert kin.jacobians('output', []).shape == (n, 6, 0)
    assert kin.jacobians('output', np.zeros((4, 0))).shape == (4, n, 6, 0)
    assert kin.frames('com', np.zeros((4, 0))).shape == (4, model.frame_count('com'), 4, 4)
    assert kin.end_effector([]).shape == (4, 4)
    assert kin.end_effector_jacobian(np.zeros((2, 0))).shape == (2, 6, 0)
    np.testing.assert_array_equal(kin.end_effector([]), kin.frames('end_effector', [])[0])
    np.testing.assert_array_equal(kin.jacobians('com', []), 0.0)


def test_empty_batch():
    model = load(BUNDLED_ARM)
    kin = Kinematics(model)
    q = np.zeros((0, model.dof_count))
    assert kin.frames('output', q).shape == (0, model.frame_count('output'), 4, 4)
    assert kin.jacobians('output', q).shape == (0, model.frame_count('output'), 6, 6)
    assert kin.end_effector(q).shape == (0, 4, 4)


def test_threads_do_not_share_scratch():
    model = load(HEXAPOD)
    kin = Kinematics(model)
    q = positions(model, 200, seed=3)
    expected = kin.jacobians('output', q)
    errors = []

    def work(offset):
        for i in range(offset, 200, 4):
            if np.max(np.abs(kin.jacobians('output', q[i]) - expected[i])) > 1e-13:
                errors.append(i)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors


def test_kinematics_pickles_with_its_compiled_frame_sets():
    import pickle
    model = load(BUNDLED_ARM)
    kin = Kinematics(model)
    q = positions(model, 3, seed=5)
    expected = kin.jacobians('output', q[0]), kin.end_effector(q)
    copy = pickle.loads(pickle.dumps(kin))
    np.testing.assert_array_equal(copy.jacobians('output', q[0]), expected[0])
    np.testing.assert_array_equal(copy.end_effector(q), expected[1])


@pytest.mark.parametrize('name', ['arm', 'hexapod', 'geared', 'branched'])
def test_joint_poses_equal_dof_transforms(name):
    model = ROBOTS[name]()
    kin = Kinematics(model)
    gear = np.array([model.elements[e].gear_ratio for e in model.dof_elements])
    poses = JointPoses(model, gear)
    for values in positions(model, 20, seed=4):
        expected = kin.dof_transforms(values * gear)
        got = np.array(poses.poses(values))
        np.testing.assert_allclose(np.linalg.norm(got[:, :4], axis=1), 1.0, atol=1e-15)
        np.testing.assert_allclose(got[:, 4:], expected[:, :3, 3], atol=1e-15, rtol=0)
        for k in range(model.dof_count):
            np.testing.assert_allclose(quaternion_to_rotation(got[k, :4]),
                                       expected[k, :3, :3], atol=1e-15, rtol=0)


def test_frames_in_any_order_and_mixed_types(small_chunks):
    """A FrameSet of frames not in depth-first order (joints then move non-contiguous
    frames): batched frames and Jacobians equal the single-configuration ones."""
    from hrdf_ros.kinematics.frame_set import FrameSet
    model = loads(BRANCHED)
    kin = Kinematics(model)
    s = kin.structure
    picks = [('output', 5), ('com', 1), ('output', 0), ('end_effector', 1), ('input', 3),
             ('output', 3)]
    anchors = [s.anchors[t][i] for t, i in picks]
    offsets = [s.offsets[t][i] for t, i in picks]
    fs = FrameSet(s, anchors, offsets)
    q = positions(model, 17, seed=6)
    frames = batch.transforms(fs, q)
    jacobians = batch_jacobians.jacobians(fs, q, np.empty((len(q), len(picks), 6,
                                                          model.dof_count)))
    for k in (0, 8, 16):
        np.testing.assert_allclose(frames[k], fs.transforms(q[k]), atol=1e-13, rtol=0)
        np.testing.assert_allclose(jacobians[k], fs.jacobians(q[k]), atol=1e-13, rtol=0)
        for f, (t, i) in enumerate(picks):
            np.testing.assert_allclose(frames[k, f], kin.frame(t, i, q[k]), atol=1e-13, rtol=0)
            np.testing.assert_allclose(jacobians[k, f], kin.frame_jacobian(t, i, q[k]),
                                       atol=1e-13, rtol=0)


@pytest.mark.parametrize('least', [1, 10 ** 6], ids=['products', 'per_joint'])
def test_both_batched_jacobian_ways_agree(robot, small_chunks, monkeypatch, least):
    """batch_jacobians has two ways (per configuration products, per joint), chosen by
    the number of frames: each, forced on every frame set, equals the single
    configuration path."""
    model, _ = robot
    monkeypatch.setattr(batch_jacobians, 'PRODUCT_MIN_FRAMES', least)
    kin = Kinematics(model)            # fresh: nothing cached from the other way
    q = positions(model, 16, seed=7)
    for frame_type in FRAME_TYPES:
        jacobians = kin.jacobians(frame_type, q)
        for k in (0, 7, 15):
            np.testing.assert_allclose(jacobians[k], kin.jacobians(frame_type, q[k]),
                                       atol=1e-13, rtol=0)
        for index in range(model.frame_count(frame_type)):
            np.testing.assert_allclose(kin.frame_jacobian(frame_type, index, q),
                                       jacobians[:, index], atol=1e-13, rtol=0)
