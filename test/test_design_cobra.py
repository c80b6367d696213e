"""CoBRA task files as ``hrdf design`` tasks (:mod:`hrdf_ros.design.cobra`): every file of
``../shared/cobra/tasks`` (the Whitman 2020 sets and the rbo edge cases) reads, each
goal's nominal pose a target and each box an object, in the base frame; what the reader
cannot honour (a key of each kind: a goal type, a projection, an interval that leaves
out the nominal pose, a tilted base, a mesh, another gravity, ...) is refused by
``hrdf design`` with exit 2 and one line naming the file and the key."""
import copy
import glob
import json
import os

import numpy as np
import pytest

from hrdf_ros.cli import main
from hrdf_ros.design import read_task
from hrdf_ros.design.cobra import cobra_task, read_cobra_task

from conftest import REPO

COBRA = os.path.join(REPO, '..', 'shared', 'cobra', 'tasks')
FILES = sorted(glob.glob(os.path.join(COBRA, '**', '*.json'), recursive=True))
FIXED = os.path.join(COBRA, 'Whitman2020', 'with_torque', '3g_3o', '0.json')


def _data(path=FIXED):
    with open(path, encoding='utf-8') as handle:
        return json.load(handle)


def test_the_shared_sets_are_there():
    assert len(FILES) == 174, len(FILES)


@pytest.mark.parametrize('path', FILES, ids=lambda p: os.path.relpath(p, COBRA))
def test_every_task_file_reads_with_its_goals_and_boxes(path):
    data = _data(path)
    read = read_cobra_task(path)
    assert read.task_id == data['header']['ID']
    via_read_task = read_task(path)             # hrdf design's reader, by the suffix
    assert [t.pose.tolist() for t in via_read_task.targets] == \
        [t.pose.tolist() for t in read.task.targets]
    goals = data['goals']
    assert [g.id for g in read.goals] == [str(g['ID']) for g in goals]
    base = np.linalg.inv(read.base)
    posed = [g['goalPose'] for g in goals if g['type'] in ('reach', 'at')]
    assert len(read.task.targets) == len(posed)
    for target, goal_pose in zip(read.task.targets, posed):
        pose = base @ np.array(goal_pose['nominal'])
        # Theta_R within 0.5 degrees, or no Theta_R (one goal of variable-base 34: x, y
        # and z within 1 m, the orientation free)
        oriented = 'Theta_R' in goal_pose['toleranceProjection']
        assert target.orientation == ('full' if oriented else 'none')
        assert np.abs(target.pose[:3, 3] - pose[:3, 3]).max() < 1e-12
        if oriented:
            assert np.abs(target.pose - pose).max() < 1e-12
    boxes = [(c, o['ID']) for o in data['obstacles'] for c in o['collision']]
    assert len(read.task.collision_objects) == len(boxes)
    for got, (box, name) in zip(read.task.collision_objects, boxes):
        pose = base @ np.array(box['pose'])
        assert got['name'].startswith(name) and got['type'] == 'box'
        assert got['dimensions'] == [box['parameters'][k] for k in 'xyz']
        assert np.abs(np.array(got['pose']['position']) - pose[:3, 3]).max() < 1e-12
    assert 'q' in read.joint_limits or 'tau' in read.joint_limits


def _set(data, keys, value):
    node = data
    for key in keys[:-1]:
        node = node[key]
    if value is _DELETE:
        del node[keys[-1]]
    else:
        node[keys[-1]] = value


_DELETE = object()
_TILTED = [[1.0, 0.0, 0.0, 0.0], [0.0, 0.0, -1.0, 0.0], [0.0, 1.0, 0.0, 0.0],
           [0.0, 0.0, 0.0, 1.0]]
#: (what is changed in 3g_3o/0, the value, the key the refusal names); a list of
#: (keys, value) and None for several changes
REFUSED = {
    'a goal type': (['goals', 0, 'type'], 'follow', 'goals[0].type'),
    'an angular projection': (['goals', 1, 'goalPose', 'toleranceProjection', 3], 'N_x',
                              'goals[1].goalPose.toleranceProjection[3]'),
    'an interval without the nominal pose': (['goals', 0, 'goalPose', 'tolerance', 0],
                                             [0.0005, 0.001], 'goals[0].goalPose.tolerance[0]'),
    'an interval narrower than the IK': (['goals', 0, 'goalPose', 'tolerance', 3], [0, 1e-7],
                                         'goals[0].goalPose.tolerance[3]'),
    'a free position': ([(['goals', 2, 'goalPose', 'toleranceProjection'], ['Theta_R']),
                         (['goals', 2, 'goalPose', 'tolerance'], [[0, 0.01]])],
                        None, 'goals[2].goalPose.toleranceProjection'),
    'a tolerance frame': (['goals', 0, 'goalPose', 'toleranceFrame'],
                          ['world', 'nominal', 'nominal', 'nominal'],
                          'goals[0].goalPose.toleranceFrame[0]'),
    'goal constraints': (['goals', 0, 'constraints'], [{'type': 'joint', 'parts': ['q']}],
                         'goals[0].constraints'),
    'a constraint type': (['constraints', 0, 'type'], 'endEffector', 'constraints[0].type'),
    'a joint part': (['constraints', 0, 'parts'], ['jerk'], 'constraints[0].parts[0]'),
    'a tilted base': (['constraints', 4, 'pose', 'nominal'], _TILTED,
                      'constraints[4].pose.nominal'),
    'a mesh': (['obstacles', 0, 'collision', 0, 'type'], 'mesh',
               'obstacles[0].collision[0].type'),
    'a box side': (['obstacles', 1, 'collision', 0, 'parameters', 'y'], -0.25,
                   'obstacles[1].collision[0].parameters'),
    'a pose that is no transform': (['obstacles', 2, 'collision', 0, 'pose', 0, 0], 2.0,
                                    'obstacles[2].collision[0].pose'),
    'gravity': (['header', 'gravity'], [0.0, 0.0, -9.80665], 'header.gravity'),
    'the version': (['header', 'version'], '2024', 'header.version'),
    'an unknown key': (['solution'], {}, 'solution'),
    'named frames': (['frames'], {'table': {'transformation': _TILTED}}, 'frames'),
    'no goals': (['goals'], [], 'goals'),
    'a missing nominal': (['goals', 0, 'goalPose', 'nominal'], _DELETE, 'goals[0].goalPose'),
}


@pytest.mark.parametrize('name', list(REFUSED))
def test_what_cannot_be_honoured_is_refused_in_one_line_naming_the_key(name, tmp_path,
                                                                       capsys):
    keys, value, named = REFUSED[name]
    data = copy.deepcopy(_data())
    if keys == ['constraints', 4, 'pose', 'nominal']:
        assert data['constraints'][4]['type'] == 'basePlacement'
    for where, new in (keys if value is None else [(keys, value)]):
        _set(data, where, new)
    path = tmp_path / 'task.json'
    path.write_text(json.dumps(data), encoding='utf-8')
    with pytest.raises(ValueError) as raised:
        cobra_task(data, str(path))
    assert str(raised.value).startswith(f'{path}: {named}'), str(raised.value)
    code = main(['design', str(path), '-o', str(tmp_path / 'out'), '--evaluations', '1'])
    out, err = capsys.readouterr()
    assert code == 2 and out == '', (code, out)
    lines = err.strip().splitlines()
    assert len(lines) == 1 and f'{path}: {named}' in lines[0], err
    assert not (tmp_path / 'out').exists()


def test_a_file_that_is_not_json_is_refused_with_its_line(tmp_path, capsys):
    path = tmp_path / 'task.json'
    path.write_text('{"header": {\n  "ID": "x",\n  oops\n}', encoding='utf-8')
    code = main(['design', str(path), '-o', str(tmp_path / 'out')])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and f'{path}: not JSON (line 3' in err[0], err
