"""Results written into caller-supplied arrays (``out=``): every batched call (frames,
jacobians, one frame, end effector, COM) fills the array it is given, returns it, writes
every entry (a buffer full of NaN comes back without one), equals the call without
``out`` bit for bit and hebi-py to 1e-9, Jacobians also finite differences; a batch
evaluated slice by slice into one buffer equals the whole; a wrong shape, dtype, layout,
a read-only array or one sharing memory with the positions is a clear error.
"""
import numpy as np
import pytest

from hrdf_ros import Kinematics, MassProperties, load, loads
from hrdf_ros.kinematics.structure import FRAME_TYPES

from conftest import BUNDLED_ARM, HEBI_FRAME_TYPES, KITS, kit_id
from test_frame_sets import (BRANCHED, GEARED, NO_JOINTS, positions,  # noqa: F401
                             robot, small_chunks)
from test_jacobians import finite_difference_jacobian


def nan_like(shape):
    return np.full(shape, np.nan)


def calls(model, kin):
    """(name, function(positions, out=...)) of every call that takes ``out``."""
    out = [(f'frames {t}', lambda q, t=t, **kw: kin.frames(t, q, **kw)) for t in FRAME_TYPES]
    out += [(f'jacobians {t}', lambda q, t=t, **kw: kin.jacobians(t, q, **kw))
            for t in FRAME_TYPES]
    for t in FRAME_TYPES:
        for i in range(model.frame_count(t)):
            out.append((f'frame {t} {i}', lambda q, t=t, i=i, **kw: kin.frame(t, i, q, **kw)))
            out.append((f'frame_jacobian {t} {i}',
                        lambda q, t=t, i=i, **kw: kin.frame_jacobian(t, i, q, **kw)))
    for i in range(model.frame_count('end_effector')):
        out.append((f'end_effector {i}', lambda q, i=i, **kw: kin.end_effector(q, i, **kw)))
        out.append((f'end_effector_jacobian {i}',
                    lambda q, i=i, **kw: kin.end_effector_jacobian(q, i, **kw)))
    mass = MassProperties(kin)
    out.append(('com_frames', lambda q, **kw: mass.com_frames(q, **kw)))
    out.append(('gravity_compensation', lambda q, **kw: mass.gravity_compensation(q, **kw)))
    if mass.total_mass > 0:
        out.append(('center_of_mass', lambda q, **kw: mass.center_of_mass(q, **kw)))
    return out


def test_out_is_filled_returned_and_equal(robot, small_chunks):
    model, kin = robot
    q = positions(model, 23)
    for name, call in calls(model, kin):
        for x in (q, q[4]):                       # a batch, and one configuration
            expected = call(x)
            buffer = nan_like(expected.shape)
            got = call(x, out=buffer)
            assert got is buffer, name
            np.testing.assert_array_equal(buffer, expected, err_msg=name)


def test_a_reused_buffer_is_rewritten(robot):
    """The second call into the same buffer overwrites the first's results everywhere
    (also the zeros of Jacobians and the constant bottom rows of frames)."""
    model, kin = robot
    first, second = positions(model, 300, seed=1), positions(model, 300, seed=2)
    for name, call in calls(model, kin):
        buffer = call(first).copy()
        call(second, out=buffer)
        np.testing.assert_array_equal(buffer, call(second), err_msg=name)


def test_batch_in_slices_into_one_buffer():
    """The documented pattern for batches larger than memory (kinematics.buffers)."""
    model = load(BUNDLED_ARM)
    kin = Kinematics(model)
    q = positions(model, 1000, seed=3)
    whole = kin.jacobians('output', q)
    buf = np.empty((128, model.frame_count('output'), 6, model.dof_count))
    for start in range(0, len(q), 128):
        part = q[start:start + 128]
        got = kin.jacobians('output', part, out=buf[:len(part)])
        np.testing.assert_array_equal(got, whole[start:start + len(part)])


@pytest.mark.parametrize('path', KITS, ids=kit_id)
def test_out_matches_hebi(path, hebi_import):
    """Frames and Jacobians written into NaN-filled buffers equal hebi-py's to 1e-9."""
    import_from_hrdf, _ = hebi_import
    model, hebi = load(path), import_from_hrdf(path)
    kin = Kinematics(model)
    q = np.random.default_rng(31).uniform(-np.pi, np.pi, (40, model.dof_count))
    for frame_type, hebi_type in HEBI_FRAME_TYPES.items():
        n = model.frame_count(frame_type)
        frames = kin.frames(frame_type, q, out=nan_like((len(q), n, 4, 4)))
        expected = np.stack([hebi.get_forward_kinematics_mat(hebi_type, x) for x in q])
        assert np.abs(frames - expected.reshape(frames.shape)).max() <= 1e-9, frame_type
        if frame_type == 'input':
            continue
        jacobians = kin.jacobians(frame_type, q, out=nan_like((len(q), n, 6, model.dof_count)))
        expected = np.stack([hebi.get_jacobians_mat(hebi_type, x) for x in q])
        assert np.abs(jacobians - expected).max() <= 1e-9, frame_type
    if model.frame_count('end_effector') == 1:   # hebi-py: several end effectors are wrong
        ee = kin.end_effector(q, out=nan_like((len(q), 4, 4)))
        assert np.abs(ee - np.stack([hebi.get_end_effector(x) for x in q])).max() <= 1e-9
        jac = kin.end_effector_jacobian(q, out=nan_like((len(q), 6, model.dof_count)))
        expected = np.stack([hebi.get_jacobian_end_effector(x) for x in q])
        assert np.abs(jac - expected).max() <= 1e-9


@pytest.mark.parametrize('text', [GEARED, BRANCHED], ids=['geared', 'branched'])
def test_out_jacobians_equal_finite_differences(text):
    model = loads(text)
    kin = Kinematics(model)
    q = positions(model, 6, seed=4)
    for frame_type in ('output', 'com', 'end_effector'):
        n = model.frame_count(frame_type)
        got = kin.jacobians(frame_type, q, out=nan_like((len(q), n, 6, model.dof_count)))
        for k, x in enumerate(q):
            np.testing.assert_allclose(got[k], finite_difference_jacobian(kin, frame_type, x),
                                       atol=1e-6, rtol=0)


def test_bad_out_is_a_clear_error():
    model = load(BUNDLED_ARM)
    kin, mass = Kinematics(model), MassProperties(Kinematics(model))
    q = positions(model, 5)
    n, dof = model.frame_count('output'), model.dof_count
    with pytest.raises(ValueError, match=r'out must have shape \(5, 12, 4, 4\), got \(4, 12'):
        kin.frames('output', q, out=np.empty((4, n, 4, 4)))
    with pytest.raises(ValueError, match='out must have shape'):
        kin.jacobians('output', q, out=np.empty((5, n, 4, 4)))
    with pytest.raises(ValueError, match=r'shape \(12, 4, 4\)'):
        kin.frames('output', q[0], out=np.empty((5, n, 4, 4)))
    with pytest.raises(TypeError, match='dtype float64, got float32'):
        kin.frames('output', q, out=np.empty((5, n, 4, 4), dtype=np.float32))
    with pytest.raises(TypeError, match='dtype float64, got int64'):
        kin.end_effector(q, out=np.empty((5, 4, 4), dtype=np.int64))
    with pytest.raises(TypeError, match='numpy array, got list'):
        kin.end_effector(q[0], out=np.zeros((4, 4)).tolist())
    with pytest.raises(ValueError, match='C-contiguous'):
        kin.jacobians('output', q, out=np.empty((5, n, 6, dof), order='F'))
    with pytest.raises(ValueError, match='C-contiguous'):
        kin.end_effector_jacobian(q, out=np.empty((5, 6, 2 * dof))[:, :, ::2])
    read_only = np.empty((5, 4, 4))
    read_only.flags.writeable = False
    with pytest.raises(ValueError, match='read-only'):
        kin.end_effector(q, out=read_only)
    shared = np.empty((5 * 16 + 5 * dof,))
    q_view = shared[:5 * dof].reshape(5, dof)
    q_view[...] = q
    with pytest.raises(ValueError, match='shares memory with the input positions'):
        kin.end_effector(q_view, out=shared[5 * dof - 16:][:80].reshape(5, 4, 4))
    with pytest.raises(ValueError, match=r'out must have shape \(5, 3\)'):
        mass.center_of_mass(q, out=np.empty((5, 4)))
    with pytest.raises(ValueError, match=r'out must have shape \(6,\)'):
        mass.gravity_compensation(q[0], out=np.empty(7))


def test_out_without_joints():
    model = loads(NO_JOINTS)
    kin = Kinematics(model)
    n = model.frame_count('output')
    frames = kin.frames('output', np.zeros((3, 0)), out=nan_like((3, n, 4, 4)))
    np.testing.assert_array_equal(frames, np.broadcast_to(kin.frames('output', []),
                                                          (3, n, 4, 4)))
    jacobians = kin.jacobians('output', np.zeros((3, 0)), out=nan_like((3, n, 6, 0)))
    assert jacobians.shape == (3, n, 6, 0)


def test_large_new_results_equal_out():
    """Results large enough to be mapped before they are filled (buffers.PREFAULT_BYTES)
    equal the same call into a caller's array and the single-configuration path."""
    from hrdf_ros.kinematics.buffers import PREFAULT_BYTES
    model = load(BUNDLED_ARM)
    kin = Kinematics(model)
    n, dof = model.frame_count('output'), model.dof_count
    q = positions(model, PREFAULT_BYTES // (n * 6 * dof * 8) + 100, seed=9)
    jacobians, frames = kin.jacobians('output', q), kin.frames('output', q)
    assert jacobians.nbytes >= PREFAULT_BYTES
    np.testing.assert_array_equal(jacobians, kin.jacobians('output', q,
                                                           out=nan_like(jacobians.shape)))
    np.testing.assert_array_equal(frames, kin.frames('output', q, out=nan_like(frames.shape)))
    for k in (0, len(q) // 2, len(q) - 1):
        np.testing.assert_allclose(jacobians[k], kin.jacobians('output', q[k]), atol=1e-13)
        np.testing.assert_allclose(frames[k], kin.frames('output', q[k]), atol=1e-13)
