"""CoBRA task files as ``hrdf design`` tasks (:mod:`hrdf_ros.design.cobra`): every file of
``../shared/cobra/tasks`` (the Whitman 2020 sets and the rbo edge cases) reads, each
goal's nominal pose a target and each box an object, in the base frame; what the reader
cannot honour (a key of each kind: a goal type, a projection, an interval that leaves
out the nominal pose, a tilted base, a mesh, another gravity, ...) is refused by
``hrdf design`` with exit 2 and one line naming the file and the key. Where the base may
stand (CoBRA's basePlacement, the YAML file's ``base``) the search places it: a
variable-base Whitman task is met as hebi-py and mplib's FCL check the design written."""
import copy
import glob
import json
import os
import re
import shlex
import subprocess
import sys

import numpy as np
import pytest

from hrdf_ros.cli import main
from hrdf_ros.design import read_task
from hrdf_ros.design.cobra import cobra_task, read_cobra_task

from conftest import REPO
from design_helpers import GRAVITY, mplib_with_boxes

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


VARIABLE = os.path.join(COBRA, 'Whitman2020', 'with_torque', 'variable_base_xyz_any_rot',
                        '3g_3o', '2.json')


TUTORIAL = 'doc/tutorials/cobra_job.md'
ID = 'Whitman2020/with_torque/variable_base_xyz_any_rot/3g_3o/2'


def test_a_variable_base_task_is_met_with_the_base_placed(tmp_path):
    """doc/tutorials/cobra_job.md, on variable-base 3g_3o task 2 (the base anywhere
    within 1 m of the origin per axis, at any rotation; its goals 0.5-1.1 m from the
    origin among three boxes; the page's file is ../shared's, linked at the path its ID
    names): the page's ``hrdf design`` prints what its console block shows (the time and
    rate as any numbers, the rest within 1e-3). hebi-py, on design-1.hrdf as written
    (the base in the robot's trans and rot) at design-1.yaml's configurations, reaches
    each goal of the JSON within its tolerance (1 mm per axis, 0.5 degrees), within
    max_efforts; the base stands inside the box, z up; mplib's FCL with the task's
    boxes finds each configuration free. The motion through the goals
    (design-1.solution.json, design-1.urdf) is accepted by timor-python 1.1.1, run
    offline as test/timor_check.py says (the page's Python example prints what it says,
    and the check's own verdict lists no failed constraint or goal), its goals met as
    hebi-py computes them, each of its samples free for mplib."""
    import hebi
    import yaml
    from test_docs import TRANSCRIPT_NUMBER, _blocks, _same_transcript
    link = tmp_path / (ID + '.json')
    link.parent.mkdir(parents=True)
    link.symlink_to(VARIABLE)
    [command] = [line for b in _blocks(TUTORIAL, 'bash') for line in b.splitlines()
                 if line.startswith('hrdf design')]
    [console] = _blocks(TUTORIAL, 'console')
    line, _, shown = console.partition('\n')
    assert line == '$ ' + command
    result = subprocess.run([sys.executable, '-m', 'hrdf_ros.cli', *shlex.split(command)[1:],
                             '--workers', '2'], cwd=tmp_path, capture_output=True,
                            text=True, timeout=900)
    assert result.returncode == 0, result.stderr
    printed, shown = result.stdout.splitlines(), shown.rstrip('\n').splitlines()
    assert len(printed) == len(shown), printed
    for a, b in zip(shown, printed):
        if a.startswith('evaluated'):     # evaluated 64 designs in <time> s (<rate> ...)
            parts = re.split(f'({TRANSCRIPT_NUMBER})', a)
            pattern = ''.join(TRANSCRIPT_NUMBER if j in (3, 5) else re.escape(p)
                              for j, p in enumerate(parts))
            assert re.fullmatch(pattern, b), b
        else:
            assert _same_transcript(a, b, 1e-3), b
    out = tmp_path / 'job'
    written = yaml.safe_load((out / 'design-1.yaml').read_text(encoding='utf-8'))
    robot = hebi.robot_model.import_from_hrdf(str(out / 'design-1.hrdf'))
    base = np.asarray(robot.base_frame)
    assert np.abs(base[:3, 3] - written['base']['xyz']).max() < 1e-12
    assert np.all(np.abs(base[:3, 3]) <= 1.0) and abs(base[2, 2] - 1.0) < 1e-12
    data = _data(VARIABLE)
    limits = np.asarray(robot.max_efforts)
    assert data['header']['gravity'] == [0.0, 0.0, -9.81]
    for goal, q in zip(data['goals'], np.array(written['configurations'])):
        nominal = np.array(goal['goalPose']['nominal'])
        pose = np.asarray(robot.get_end_effector(q))
        delta = np.linalg.inv(nominal) @ pose
        assert np.abs(delta[:3, 3]).max() <= 1e-3
        angle = np.arccos(np.clip((np.trace(delta[:3, :3]) - 1) / 2, -1.0, 1.0))
        assert angle <= np.radians(0.5)
        assert np.all(np.abs(robot.get_grav_comp_efforts(q, GRAVITY)) <= limits)
    from hrdf_ros import load
    oracle = mplib_with_boxes(load(str(out / 'design-1.hrdf')), tmp_path,
                              read_cobra_task(VARIABLE).task.collision_objects)
    assert [k for k, q in enumerate(written['configurations']) if oracle.collides(q)] == []
    _solution_is_accepted(out, data, robot, written, oracle, tmp_path)


def _solution_is_accepted(out, data, robot, written, oracle, tmp_path):
    """design-1.solution.json and design-1.urdf as Timor, hebi-py and mplib see them."""
    from timor_check import check
    solution = json.loads((out / 'design-1.solution.json').read_text(encoding='utf-8'))
    assert solution['taskID'] == data['header']['ID']
    assert solution['jointNames'] == ['J1', 'J2', 'J3', 'J4', 'J5', 'J6']
    verdict = check(VARIABLE, out, 1, tmp_path / 'timor')
    _tutorial_check_prints_what_it_says(tmp_path, verdict)
    assert verdict['valid'], verdict
    assert verdict['failed_constraints'] == [] and verdict['failed_goals'] == []
    assert verdict['joint_names'] == solution['jointNames']   # Pinocchio's order
    assert verdict['torque_ratio'] <= 1.0 and verdict['collision_pairs'] > 0
    trajectory = solution['trajectory']
    t, q = np.array(trajectory['t']), np.array(trajectory['q'])
    assert verdict['cost'] == t[-1] == solution['cost']
    assert np.all(np.diff(t) > 0) and np.diff(t).max() <= data['header']['timeStepSize'] + 1e-9
    # hebi-py (the design's HRDF with its base) at each goal's time; its masses
    assert sum(robot.masses) == pytest.approx(written['mass_kg'], abs=1e-6)
    goals = {g['ID']: g for g in data['goals']}
    assert sorted(trajectory['goal2time']) == sorted(goals)
    for gid, time in trajectory['goal2time'].items():
        k = int(np.flatnonzero(t == time)[0])
        assert np.all(np.array(trajectory['dq'][k]) == 0.0)       # reach: at rest
        delta = np.linalg.inv(np.array(goals[gid]['goalPose']['nominal'])) @ \
            np.asarray(robot.get_end_effector(q[k]))
        assert np.abs(delta[:3, 3]).max() <= 1e-3
        angle = np.arccos(np.clip((np.trace(delta[:3, :3]) - 1) / 2, -1.0, 1.0))
        assert angle <= np.radians(0.5)
    # the solution's world pose of the base is the HRDF's base frame
    np.testing.assert_allclose(solution['basePose'][0], robot.base_frame, atol=1e-12)
    assert [k for k in range(len(t)) if oracle.collides(q[k])] == []


def _tutorial_check_prints_what_it_says(workdir, verdict):
    """The page's Python example (Timor on the solution), run where the page's command
    ran, offline as test/timor_check.py does it, prints what the page says."""
    from test_docs import _blocks
    from timor_check import OFFLINE_PRELUDE, offline_home
    [code] = _blocks(TUTORIAL, 'python')
    subprocess.run([sys.executable, '-m', 'hrdf_ros.cli', 'moveit', 'job/design-1.hrdf',
                    '-o', 'moveit'], cwd=workdir, check=True, capture_output=True,
                   timeout=300)
    done = subprocess.run([sys.executable, '-c', OFFLINE_PRELUDE + code], cwd=workdir,
                          env=offline_home(str(workdir / 'home')), capture_output=True,
                          text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    said = re.search(r'It prints `(.*?)`', open(os.path.join(REPO, TUTORIAL),
                                                 encoding='utf-8').read()).group(1)
    assert done.stdout.strip().splitlines()[-1] == said == f"True {verdict['cost']!r}"


def test_the_base_grids_hold_the_range_ends_in_steps_of_at_most_1_cm_and_5_degrees():
    from hrdf_ros.design.search import BASE_STEP, YAW_STEP, base_grids
    from hrdf_ros.design.task import BaseRange
    grids = dict(base_grids(BaseRange((-1.0, -0.333, 0.2), (1.0, 0.5, 0.2005),
                                      (-np.pi, np.pi))))
    x, y, z, yaw = (np.array(grids[k]) for k in ('base_x', 'base_y', 'base_z', 'base_yaw'))
    assert (x[0], x[-1], y[0], y[-1]) == (-1.0, 1.0, -0.333, 0.5)
    assert np.diff(x).max() <= BASE_STEP + 1e-12 and np.diff(y).max() <= BASE_STEP + 1e-12
    assert list(z) == [0.2]                           # narrower than a step: nearest to 0
    assert yaw[0] == round(-np.pi, 9) and yaw[-1] < np.pi - YAW_STEP / 2   # a full turn
    assert np.diff(yaw).max() <= YAW_STEP + 1e-9


def test_a_cobra_base_tolerance_is_the_box_and_yaw_the_search_keeps():
    read = read_cobra_task(VARIABLE)
    assert read.task.base.low == (-1.0, -1.0, -1.0) and read.task.base.high == (1, 1, 1)
    assert read.task.base.yaw == (-np.pi, np.pi)       # no Theta_R: any rotation
    fixed = read_cobra_task(FIXED).task.base            # 1 mm, 0.5 degrees
    assert fixed.high == (0.001,) * 3 and fixed.yaw[1] == pytest.approx(np.radians(0.5))


@pytest.mark.parametrize('base, named', [
    ({'low': [0, 0, 0], 'high': [-1, 0, 0]}, 'low must be <= high'),
    ({'low': [0, 0], 'high': [1, 1, 1]}, 'base.low must be 3 numbers'),
    ({'yaw': [0, 7]}, 'base.yaw must be [least, most]'),
    ({'tilt': 1}, "unknown key 'tilt'"),
    ([0, 0, 0], 'base must be a mapping')])
def test_a_yaml_base_that_is_not_a_range_is_refused(base, named):
    from hrdf_ros.design import task
    with pytest.raises(ValueError, match=re.escape(named)):
        task({'targets': [{'xyz': [0.3, 0, 0.2]}], 'base': base}, 'task.yaml')
