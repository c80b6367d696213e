"""Differential test over HEBI's real HRDF files (../shared/hrdf/real: flat/ and every file
of trees/ as a top-level load) against hebi-py 2.16.1, run per file in its own process
(test/hebi_oracle.py: it crashes on include cycles and hangs on some formulas).

* hebi-py's outcome per file is recorded here (:data:`HEBI_REJECTS`) and checked, so a
  change of data or of hebi-py shows;
* hrdf_ros loads every file hebi-py loads (:data:`REJECTED_ON_PURPOSE` is empty), and
  rejects what hebi-py rejects, except files FORMAT.md/GRAMMAR.md call valid
  (:data:`LOADED_THOUGH_HEBI_REJECTS`; compared with hebi-py on a spelling it accepts);
* for each loaded file, at 20 random configurations: every input, output, COM and
  end-effector frame, the output, COM and end-effector Jacobians equal hebi-py's to
  1e-9, with hebi-py's two Jacobian bugs handled and pinned: negative-axis columns have
  the wrong sign in hebi-py, and its EndEffector Jacobian of a robot with several end
  effectors is wrong (we compare with its output-frame Jacobian at the end effector);
  end-effector Jacobians also equal finite differences of the FK; gravity efforts equal
  hebi-py's ``get_grav_comp_efforts`` (the same negative-axis sign) under two gravity
  vectors;
* strict mode rejects each deviating file with its located rule codes (API and CLI);
  no kit has a warning, strict or not.
"""
import os
import re
import shutil
import subprocess
import sys

import numpy as np
import pytest

from hrdf_ros import Kinematics, load, validate_file
from hrdf_ros.cli import main
from hrdf_ros.hrdf.leniency import DEVIATIONS

from conftest import KITS, REPO, kit_id
import hebi_oracle
from test_leniency import finite_difference_jacobian

REAL = os.path.normpath(os.path.join(REPO, '..', 'shared', 'hrdf', 'real'))
FILES = sorted(os.path.relpath(os.path.join(folder, name), REAL)
               for folder, _, names in os.walk(REAL) for name in names
               if name.endswith('.hrdf')) if os.path.isdir(REAL) else []
pytestmark = pytest.mark.skipif(not FILES, reason=f'no real HRDF files in {REAL}')
TOLERANCE = 1e-9
HPE, RC = 'flat/HebiRobotics_hebi-python-examples__', 'flat/HebiRobotics_robot-config__'
DAISY_E8 = 'trees/HebiRobotics_hebi-python-examples@e8d76a5728/kits/daisy/resources/daisy.hrdf'
A2592 = 'HebiRobotics_hebi-python-examples@27449543f3/kits/bases/config/hrdf/A-2592-01.hrdf'

#: What hebi-py 2.16.1 refuses, and why (checked). Everything else it loads.
HEBI_REJECTS = {
    **{f'{HPE}{name}.hrdf': 'includes files that are not beside the flat copy'
       for name in ('kits_daisy_resources_daisy', 'kits_igor2_hrdf_igor',
                    'kits_igor2_hrdf_tgor', 'kits_tready_hrdf_Tready',
                    'kits_tready_hrdf_Tready_track')},
    **{f'{RC}{name}.hrdf': 'includes files that are not beside the flat copy'
       for name in ('daisy_config_hrdf_Daisy', 'rosie_config_hrdf_Rosie',
                    'tready_config_hrdf_Tready', 'tready_config_hrdf_Tready_track')},
    f'{HPE}kits_bases_config_hrdf_A-2592-01.hrdf':
        'text ("#" comments) inside <rigid-body> and <output>; a missing include',
    f'trees/{A2592}': 'text ("#" comments) inside <rigid-body> and <output>; a missing '
                      'include',
    DAISY_E8: 'Rz(5*-pi/6): hebi-py takes no unary minus after "*"',
}
#: Files hebi-py loads that hrdf_ros refuses on purpose (with the reason): none.
REJECTED_ON_PURPOSE = {}
#: Files hebi-py refuses that hrdf_ros loads, because the spec says they are valid, with
#: the rewrite hebi-py accepts for the comparison.
LOADED_THOUGH_HEBI_REJECTS = {
    DAISY_E8: ('GRAMMAR.md: unaryExpression may follow "*"', ('5*-pi/6', '-5*pi/6')),
}
#: Frame types: hrdf_ros name -> hebi-py name.
TYPES = {'input': 'input', 'output': 'output', 'com': 'com', 'end_effector': 'EndEffector'}


def _rewritten_copy(relative, folder):
    """A copy of ``relative``'s directory in ``folder`` with the file's formula rewritten
    as hebi-py accepts it; returns the copied file's path."""
    old, new = LOADED_THOUGH_HEBI_REJECTS[relative][1]
    source = os.path.join(REAL, relative)
    target = os.path.join(folder, 'copy')
    shutil.copytree(os.path.dirname(source), target)
    path = os.path.join(target, os.path.basename(source))
    with open(path, encoding='utf-8') as handle:
        text = handle.read()
    assert old in text
    with open(path, 'w', encoding='utf-8') as handle:
        handle.write(text.replace(old, new))
    return path


@pytest.fixture(scope='module')
def hebi(tmp_path_factory):
    """relative path -> hebi-py's result (:func:`hebi_oracle.run_all`, one process per
    file); files in LOADED_THOUGH_HEBI_REJECTS also under '<path>@rewritten'."""
    folder = tmp_path_factory.mktemp('hebi')
    jobs = {relative: (os.path.join(REAL, relative), k) for k, relative in enumerate(FILES)}
    for k, relative in enumerate(LOADED_THOUGH_HEBI_REJECTS):
        jobs[relative + '@rewritten'] = (_rewritten_copy(relative, str(folder / f'r{k}')),
                                         FILES.index(relative))
    results = hebi_oracle.run_all((path, seed, str(folder / f'{n}.npz'))
                                  for n, (path, seed) in enumerate(jobs.values()))
    return dict(zip(jobs, results))


def test_hebi_outcomes_are_as_recorded(hebi):
    rejected = {f for f in FILES if not hebi[f]['ok']}
    assert rejected == set(HEBI_REJECTS), {f: hebi[f].get('error') for f in rejected}
    assert 'Rz(5*-pi/6)' in hebi[DAISY_E8]['error']


@pytest.mark.parametrize('relative', FILES)
def test_real_file_loads_as_hebi_py_does(relative, hebi):
    theirs = hebi[relative]
    report = validate_file(os.path.join(REAL, relative))
    if relative in REJECTED_ON_PURPOSE:
        assert not report.valid
        return
    if not theirs['ok']:
        assert report.valid == (relative in LOADED_THOUGH_HEBI_REJECTS), \
            [str(e) for e in report.errors]
        if not report.valid:
            return
        theirs = hebi[relative + '@rewritten']
    assert report.valid, [str(e) for e in report.errors]
    compare(report.model, theirs)


def compare(model, theirs):
    arrays = theirs['arrays']
    q = arrays['q']
    assert model.dof_count == theirs['dof']
    np.testing.assert_allclose(model.masses, theirs['masses'], atol=1e-12, rtol=0)
    kinematics = Kinematics(model)
    frames = kinematics.forward_kinematics(q)
    for ours, name in TYPES.items():
        assert model.frame_count(ours) == theirs['frames'][name]
        assert frames[ours].shape == arrays[f'fk_{name}'].shape, ours
        if frames[ours].size:
            assert np.abs(frames[ours] - arrays[f'fk_{name}']).max() <= TOLERANCE, ours
    # hebi-py bug 1 (pinned below): a negative axis's column has the wrong sign.
    signs = np.array([model.elements[e].axis_sign for e in model.dof_elements])
    for ours, name in (('output', 'output'), ('com', 'com')):
        jacobians = kinematics.jacobians(ours, q)
        expected = arrays[f'jac_{name}'] * signs
        if jacobians.size:
            assert np.abs(jacobians - expected).max() <= TOLERANCE, ours
    # gravity efforts: hebi-py's get_grav_comp_efforts, whose negative-axis columns come
    # from the same Jacobian
    for name, gravity in hebi_oracle.GRAVITY.items():
        efforts = kinematics.gravity_efforts(q, gravity)
        assert np.abs(efforts - arrays[name] * signs).max(initial=0.0) <= TOLERANCE, name
    slots = end_effector_output_slots(model)
    for i, slot in enumerate(slots):
        # hebi-py bug 2: its EndEffector Jacobian; its output-frame one at the slot is right
        expected = arrays['jac_output'][:, slot] * signs
        jacobian = kinematics.end_effector_jacobian(q, i)
        if jacobian.size:
            assert np.abs(jacobian - expected).max() <= TOLERANCE, f'end effector {i}'
        for x in q[:3]:
            np.testing.assert_allclose(kinematics.end_effector_jacobian(x, i),
                                       finite_difference_jacobian(kinematics, x, i),
                                       atol=1e-7, rtol=0)


def end_effector_output_slots(model):
    """Index among the output frames of each end-effector frame (public model API)."""
    return [model.frame_index(e, 'output') for e, element in enumerate(model.elements)
            if element.is_end_effector]


def _loaded(hebi):
    return [f for f in FILES if hebi[f]['ok'] and f not in REJECTED_ON_PURPOSE]


def test_hebi_negative_axis_jacobian_bug_is_still_there(hebi):
    """hebi-py's column of a negative axis is the negation of its own FK's derivative.
    If this fails, hebi-py fixed it: drop the sign flip in compare()."""
    checked = 0
    for relative in _loaded(hebi):
        model = load(os.path.join(REAL, relative))
        negative = [k for k, e in enumerate(model.dof_elements)
                    if model.elements[e].axis_sign < 0]
        arrays = hebi[relative]['arrays']
        if not negative or not model.frame_count('end_effector'):
            continue
        slot = end_effector_output_slots(model)[0]
        ours = Kinematics(model).end_effector_jacobian(arrays['q'])[..., negative]
        theirs = arrays['jac_output'][:, slot][..., negative]
        np.testing.assert_allclose(theirs, -ours, atol=TOLERANCE, rtol=0)
        assert np.abs(theirs - ours).max() > 1e-3
        checked += 1
    assert checked >= 3


def test_hebi_multi_end_effector_jacobian_bug_is_still_there(hebi):
    """hebi-py's EndEffector Jacobian of a robot with several end effectors differs from
    its own output-frame Jacobian at those frames. If this fails, hebi-py fixed it."""
    checked = 0
    for relative in _loaded(hebi):
        theirs = hebi[relative]
        if theirs['frames']['EndEffector'] < 2:
            continue
        arrays = theirs['arrays']
        slots = end_effector_output_slots(load(os.path.join(REAL, relative)))
        assert np.abs(arrays['jac_EndEffector'] - arrays['jac_output'][:, slots]).max() > 0.1
        checked += 1
    assert checked >= 3


@pytest.mark.parametrize('relative', FILES)
def test_strict_mode_rejects_each_deviation_with_its_located_rule(relative, capsys):
    path = os.path.join(REAL, relative)
    report = validate_file(path)
    if not report.valid:
        return
    deviations = [w for w in report.warnings if w.code in DEVIATIONS]
    strict = validate_file(path, strict=True)
    located = [(d.code, d.path, d.line, d.column, d.element, d.attribute)
               for d in deviations]
    assert [(d.code, d.path, d.line, d.column, d.element, d.attribute)
            for d in strict.errors] == located
    assert strict.valid == (not deviations)
    assert main(['validate', '--strict', path]) == (1 if deviations else 0)
    err = capsys.readouterr().err
    for d in deviations:
        assert re.search(rf'^{re.escape(d.path)}:{d.line}:{d.column}: error: .*'
                         rf'\[{d.code}\]$', err, re.M), d


@pytest.mark.parametrize('path', KITS, ids=kit_id)
def test_no_warning_on_a_kit(path):
    assert load(path).warnings == [] and load(path, strict=True).warnings == []


def test_the_oracle_survives_hebi_crashes_and_hangs(tmp_path):
    hang = tmp_path / 'hang.hrdf'
    hang.write_text('<robot version="1.6.0"><rigid-body mass="1 . 5"/></robot>')
    arm = os.path.join(REPO, 'config', 'x_series_arm_6dof.hrdf')
    # the hang given 1 s, the arm after it the default 30 s (its own bound, not the hang's)
    stuck, fine = hebi_oracle.run_all([(str(hang), 0, str(tmp_path / 'a.npz'), 1.0),
                                       (arm, 1, str(tmp_path / 'b.npz'))])
    assert stuck == {'ok': False, 'error': 'timeout'}      # libhebi hangs on a lone "."
    assert fine['ok'] and fine['arrays']['q'].shape == (20, 6)
    # a child killed by SIGSEGV (hebi-py on some include cycles) is a result too
    code = ('import os, signal, sys; sys.path.insert(0, sys.argv[1]); import hebi_oracle\n'
            'hebi_oracle._evaluate = lambda *a: os.kill(os.getpid(), signal.SIGSEGV)\n'
            'print(hebi_oracle._in_child("x", 0, sys.argv[2], 5.0))')
    out = subprocess.run([sys.executable, '-c', code, os.path.join(REPO, 'test'),
                          str(tmp_path / 'c.npz')], capture_output=True, text=True,
                         timeout=60).stdout
    assert "'ok': False, 'error': 'crash" in out
