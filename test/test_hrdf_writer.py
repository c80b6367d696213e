"""HRDF out (``hrdf_ros.to_hrdf``): every kit of ../shared/hrdf/kits and every
real HEBI file hrdf_ros loads (flat files and trees), the bundled arm and the test arms,
read, written and read again, are the same robot: the same elements, joint names and
count, every frame of every type at random states to 1e-12 m, masses to 1e-12 kg; and
hebi-py (each file in its own process: ``hebi_oracle``) imports every written file with
the same frames (1e-9) and masses as the file it came from, wherever it imports that
file.
"""
import glob
import os

import numpy as np
import pytest

from hrdf_ros import HrdfError, Kinematics, load, loads
from hrdf_ros import to_hrdf

import hebi_oracle
from conftest import BUNDLED_ARM, KITS, REPO

REAL = os.path.join(REPO, '..', 'shared', 'hrdf', 'real')
ARMS = sorted(glob.glob(os.path.join(REPO, 'test', 'data', 'arms', '*.hrdf')))


def _loadable():
    found = []
    paths = KITS + sorted(glob.glob(os.path.join(REAL, 'flat', '*.hrdf'))) + sorted(
        glob.glob(os.path.join(REAL, 'trees', '**', '*.hrdf'), recursive=True)) \
        + [BUNDLED_ARM] + ARMS
    for path in paths:
        try:
            load(path)
        except HrdfError:
            continue
        found.append(path)
    return found


FILES = _loadable()


def _label(path):
    return os.path.relpath(path, os.path.join(REPO, '..', 'shared'))


def test_the_corpus_is_here():
    assert len(KITS) == 26 and len(FILES) >= 26 + 50


@pytest.mark.parametrize('path', FILES, ids=_label)
def test_written_hrdf_reads_back_as_the_same_robot(path):
    model = load(path)
    again = loads(to_hrdf(model), base_dir=os.path.dirname(path))
    assert [(e.kind, e.type, e.tag, e.parent, e.parent_output) for e in again.elements] == \
        [(e.kind, e.type, e.tag, e.parent, e.parent_output) for e in model.elements]
    assert again.joint_names() == model.joint_names() and again.dof_count == model.dof_count
    np.testing.assert_allclose(again.masses, model.masses, atol=1e-12, rtol=0)
    ours, theirs = Kinematics(model), Kinematics(again)
    for q in np.random.default_rng(3).uniform(-np.pi, np.pi, (6, model.dof_count)):
        for frame_type in ('input', 'output', 'com', 'end_effector'):
            if model.frame_count(frame_type):
                np.testing.assert_allclose(theirs.frames(frame_type, q),
                                           ours.frames(frame_type, q), atol=1e-12, rtol=0)
    assert to_hrdf(again) == to_hrdf(model)          # written again: the same text


def test_hebi_py_imports_every_written_file_as_the_original(tmp_path):
    jobs, labels = [], []
    for n, path in enumerate(FILES):
        written = tmp_path / f'{n}.hrdf'
        written.write_text(to_hrdf(load(path)), encoding='utf-8')
        jobs += [(path, n, str(tmp_path / f'{n}a.npz')),
                 (str(written), n, str(tmp_path / f'{n}b.npz'))]
        labels.append(_label(path))
    results = hebi_oracle.run_all(jobs)
    compared = 0
    for label, original, written in zip(labels, results[::2], results[1::2]):
        if not original['ok']:                     # hebi-py refuses the original too
            continue
        assert written['ok'], (label, written.get('error'))
        assert written['dof'] == original['dof'], label
        np.testing.assert_allclose(written['masses'], original['masses'], atol=1e-9,
                                   err_msg=label)
        for key, value in original['arrays'].items():
            if key.startswith('fk_'):
                np.testing.assert_allclose(written['arrays'][key], value, atol=1e-9,
                                           err_msg=f'{label} {key}')
        compared += 1
    assert compared >= len(FILES) - 3
