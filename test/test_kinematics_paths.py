"""The two kinematics paths: the compiled kernels (numba, the extra ``hrdf_ros[fast]``,
:mod:`hrdf_ros.kinematics.compiled`) against the numpy path (1e-12) and hebi-py (1e-9),
and how a path is chosen (:mod:`hrdf_ros.kinematics.backend`).

The rest of the suite runs the numpy path (conftest sets it as the process default);
here every public call runs on both paths: every kit, the bundled arm, both hexapods, a
tree with a prismatic joint and gear ratios, a robot without degrees of freedom; one
configuration and a batch, with and without ``out=``, one thread and several. Without
numba installed (``make test`` installs it; .ci/run fails on a skip) these tests skip.
The missing extra is run for real in a child process where ``import numba`` fails
(``sys.modules['numba'] = None``, Python's own way to block a module).
"""
import json
import os
import subprocess
import sys

import numpy as np
import pytest

from hrdf_ros import Kinematics, load, loads
from hrdf_ros.kinematics import backend

from conftest import BUNDLED_ARM, HEBI_FRAME_TYPES, HEXAPOD, HEXAPOD_18, KITS, kit_id
from test_frame_paths import GEARED, TREE

pytest.importorskip('numba', reason="numba not installed (make test installs hrdf_ros[fast])")

FILES = KITS + [BUNDLED_ARM, HEXAPOD, HEXAPOD_18]
FILE_IDS = [kit_id(p) for p in FILES]
TEXTS = {'tree': TREE, 'geared_prismatic': GEARED,
         'no_dof': '<robot version="1.4.0"><rigid-body mass="2" com_trans="0.1 0 0"/>'
                   '<end-effector/></robot>'}
FRAME_TYPES = ('input', 'output', 'com', 'end_effector')
TOLERANCE = 1e-12


def both(model):
    return Kinematics(model, 'numpy'), Kinematics(model, 'numba')


def configurations(model, count, seed):
    return np.random.default_rng(seed).uniform(-np.pi, np.pi, (count, model.dof_count))


def assert_same(a, b, what):
    assert a.shape == b.shape, what
    np.testing.assert_allclose(a, b, rtol=0, atol=TOLERANCE, err_msg=what)


def check_every_call(model, seed):
    """Every public call on both paths: one configuration, a batch, out=, threads."""
    numpy_path, numba_path = both(model)
    assert (numpy_path.path, numba_path.path) == ('numpy', 'numba')
    q = configurations(model, 37, seed)
    for frame_type in FRAME_TYPES:
        count = model.frame_count(frame_type)
        for call, shape in (('frames', (count, 4, 4)),
                            ('jacobians', (count, 6, model.dof_count))):
            expected = getattr(numpy_path, call)(frame_type, q)
            what = f'{call}({frame_type})'
            assert_same(getattr(numba_path, call)(frame_type, q), expected, what)
            assert_same(getattr(numba_path, call)(frame_type, q, threads=3), expected, what)
            out = np.full((len(q),) + shape, np.nan)
            assert getattr(numba_path, call)(frame_type, q, out=out) is out
            assert_same(out, expected, what + ' out=')
            assert_same(getattr(numba_path, call)(frame_type, q[5]), expected[5], what)
            single = np.full(shape, np.nan)
            assert getattr(numba_path, call)(frame_type, q[6], out=single) is single
            assert_same(single, expected[6], what + ' one, out=')
        for index in range(count):
            for call, shape in (('frame', (4, 4)), ('frame_jacobian', (6, model.dof_count))):
                expected = getattr(numpy_path, call)(frame_type, index, q)
                what = f'{call}({frame_type}, {index})'
                assert_same(getattr(numba_path, call)(frame_type, index, q), expected, what)
                assert_same(getattr(numba_path, call)(frame_type, index, q, threads=2),
                            expected, what)
                out = np.full((len(q),) + shape, np.nan)
                getattr(numba_path, call)(frame_type, index, q, out=out)
                assert_same(out, expected, what + ' out=')
                assert_same(getattr(numba_path, call)(frame_type, index, q[1]), expected[1],
                            what)
                single = np.full(shape, np.nan)
                getattr(numba_path, call)(frame_type, index, q[2], out=single)
                assert_same(single, expected[2], what + ' one, out=')
    for one in (q, q[4]):
        assert_same(numba_path.gravity_efforts(one, threads=2),
                    numpy_path.gravity_efforts(one), 'gravity_efforts')
        expected = numpy_path.forward_kinematics(one)
        for frame_type, frames in numba_path.forward_kinematics(one, threads=2).items():
            assert_same(frames, expected[frame_type], f'forward_kinematics {frame_type}')


@pytest.mark.parametrize('path', FILES, ids=FILE_IDS)
def test_numba_equals_numpy_on_every_call(path):
    check_every_call(load(path), seed=len(path))


@pytest.mark.parametrize('name', sorted(TEXTS))
def test_numba_equals_numpy_on_trees_prismatic_gears_and_no_dof(name):
    check_every_call(loads(TEXTS[name]), seed=3)


@pytest.mark.parametrize('path', KITS, ids=kit_id)
def test_numba_equals_hebi(path, hebi_import):
    import_from_hrdf, _ = hebi_import
    model, hebi = load(path), import_from_hrdf(path)
    kin = Kinematics(model, 'numba')
    q = configurations(model, 20, 11)
    for frame_type, hebi_type in HEBI_FRAME_TYPES.items():
        fk = np.stack([hebi.get_forward_kinematics_mat(hebi_type, x) for x in q])
        np.testing.assert_allclose(kin.frames(frame_type, q), fk, rtol=0, atol=1e-9)
        np.testing.assert_allclose(kin.frames(frame_type, q[0]), fk[0], rtol=0, atol=1e-9)
        if frame_type == 'input':   # hebi-py has no input-frame Jacobians
            continue
        jac = np.stack([hebi.get_jacobians_mat(hebi_type, x) for x in q])
        np.testing.assert_allclose(kin.jacobians(frame_type, q), jac, rtol=0, atol=1e-9)
        np.testing.assert_allclose(kin.jacobians(frame_type, q[0]), jac[0], rtol=0,
                                   atol=1e-9)
    np.testing.assert_allclose(kin.end_effector_jacobian(q),
                               np.stack([hebi.get_jacobian_end_effector(x) for x in q]),
                               rtol=0, atol=1e-9)


def test_jacobian_columns_equal_finite_differences():
    """The compiled Jacobian against central differences of the compiled frames (the
    geared tree: prismatic and scaled joints)."""
    model = loads(GEARED)
    kin = Kinematics(model, 'numba')
    q = configurations(model, 1, 5)[0]
    step = 1e-6
    jac = kin.end_effector_jacobian(q)
    for k in range(model.dof_count):
        dq = np.zeros(model.dof_count)
        dq[k] = step
        plus, minus = kin.end_effector(q + dq), kin.end_effector(q - dq)
        linear = (plus[:3, 3] - minus[:3, 3]) / (2 * step)
        spin = (plus[:3, :3] - minus[:3, :3]) / (2 * step) @ kin.end_effector(q)[:3, :3].T
        angular = np.array([spin[2, 1], spin[0, 2], spin[1, 0]])
        np.testing.assert_allclose(jac[:3, k], linear, atol=1e-8)
        np.testing.assert_allclose(jac[3:, k], angular, atol=1e-8)


def test_bad_threads_and_paths_are_refused():
    model = load(BUNDLED_ARM)
    kin = Kinematics(model, 'numba')
    q = configurations(model, 4, 1)
    for threads in (0, -1, 1.5, True, '2'):
        with pytest.raises(ValueError, match='threads'):
            kin.frames('output', q, threads=threads)
    with pytest.raises(ValueError, match='kinematics must be one of'):
        Kinematics(model, 'fortran')
    # out= is checked as on the numpy path
    with pytest.raises(ValueError, match='shape'):
        kin.frames('output', q, out=np.empty((3, model.frame_count('output'), 4, 4)))
    with pytest.raises(TypeError, match='float64'):
        kin.jacobians('output', q[0], out=np.empty((model.frame_count('output'), 6, 6), np.float32))


def test_the_environment_variable_forces_a_path(monkeypatch):
    model = load(BUNDLED_ARM)
    monkeypatch.setenv(backend.KINEMATICS_VARIABLE, 'numpy')
    assert Kinematics(model, 'numba').path == 'numpy'
    monkeypatch.setenv(backend.KINEMATICS_VARIABLE, 'numba')
    assert Kinematics(model, 'numpy').path == 'numba'
    monkeypatch.setenv(backend.KINEMATICS_VARIABLE, 'auto')
    assert Kinematics(model, 'numpy').path == 'numba'
    monkeypatch.setenv(backend.KINEMATICS_VARIABLE, 'fast')
    with pytest.raises(ValueError, match=backend.KINEMATICS_VARIABLE):
        Kinematics(model).frames('output', np.zeros(model.dof_count))


def test_the_api_default_is_auto_and_numba_is_imported_at_the_first_call():
    """A fresh interpreter: constructing a Kinematics imports no numba; the first call
    does, and runs on numba."""
    result = _python('import sys, numpy as np\n'
                     'from hrdf_ros import Kinematics, load\n'
                     f'kin = Kinematics(load({BUNDLED_ARM!r}))\n'
                     'before = "numba" in sys.modules\n'
                     'kin.end_effector(np.zeros(kin.dof_count))\n'
                     'print(before, "numba" in sys.modules, kin.path)\n')
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ['False', 'True', 'numba']


BLOCKED = "import sys; sys.modules['numba'] = None\n"


def _without(*names):
    return {k: v for k, v in os.environ.items() if k not in names}


def _python(code, *args, **env):
    """``python -c code args`` in a fresh interpreter, without HRDF_ROS_KINEMATICS unless
    ``env`` sets it."""
    return subprocess.run([sys.executable, '-c', code, *args], capture_output=True,
                          text=True, timeout=300,
                          env=dict(_without(backend.KINEMATICS_VARIABLE), **env))


def test_without_numba_everything_works_on_numpy_and_says_how_to_get_numba():
    code = BLOCKED + ('import numpy as np\n'
                      'from hrdf_ros import Kinematics, load\n'
                      'from hrdf_ros.kinematics import backend\n'
                      f'kin = Kinematics(load({BUNDLED_ARM!r}))\n'
                      'frames = kin.frames("output", np.zeros((3, kin.dof_count)))\n'
                      'print(kin.path, frames.shape)\n'
                      'print(backend.describe(kin.path))\n'
                      'try:\n'
                      '    Kinematics(kin.model, "numba").path\n'
                      'except ImportError as exc:\n'
                      '    print("ImportError:", exc)\n')
    result = _python(code)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0] == 'numpy (3, 12, 4, 4)'
    assert lines[1] == f'kinematics: numpy (numba not installed: {backend.FAST_HINT})'
    assert lines[2] == f'ImportError: numba is not installed: {backend.FAST_HINT}'


def _hrdf(*args, blocked=False, **env):
    code = (BLOCKED if blocked else '') + \
        'import sys; from hrdf_ros.cli.main import main; sys.exit(main(sys.argv[1:]))'
    return _python(code, *args, **env)


def test_cli_says_which_path_and_keeps_numpy_unless_told():
    info = _hrdf('info', BUNDLED_ARM, '--json')
    assert info.returncode == 0 and json.loads(info.stdout)['kinematics'] == 'numpy'
    text = _hrdf('info', BUNDLED_ARM)
    assert 'kinematics: numpy (numba installed; --kinematics numba' in text.stdout
    told = _hrdf('info', BUNDLED_ARM, '--json', '--kinematics', 'numba')
    assert json.loads(told.stdout)['kinematics'] == 'numba'
    forced = _hrdf('info', BUNDLED_ARM, '--json', **{backend.KINEMATICS_VARIABLE: 'numba'})
    assert json.loads(forced.stdout)['kinematics'] == 'numba'
    positions = ','.join(['0.3'] * 6)
    answers = [json.loads(_hrdf('fk', BUNDLED_ARM, '--positions', positions, '--json',
                                '--kinematics', path).stdout) for path in ('numpy', 'numba')]
    assert _close(answers[0], answers[1]), answers


def _close(a, b):
    """Nested JSON values equal to :data:`TOLERANCE`."""
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_close(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(_close(x, y) for x, y in zip(a, b))
    if isinstance(a, float):
        return abs(a - b) <= TOLERANCE
    return a == b


def test_cli_without_numba_says_how_to_get_it_in_one_line():
    text = _hrdf('info', BUNDLED_ARM, blocked=True)
    assert text.returncode == 0
    assert f'kinematics: numpy (numba not installed: {backend.FAST_HINT})' in text.stdout
    told = _hrdf('fk', BUNDLED_ARM, '--kinematics', 'numba', blocked=True)
    assert told.returncode == 2 and 'Traceback' not in told.stderr
    assert told.stderr.strip() == f'hrdf: error: numba is not installed: {backend.FAST_HINT}'
    bad = _hrdf('info', BUNDLED_ARM, **{backend.KINEMATICS_VARIABLE: 'fast'})
    assert bad.returncode == 2 and len(bad.stderr.strip().splitlines()) == 1
    assert backend.KINEMATICS_VARIABLE in bad.stderr
