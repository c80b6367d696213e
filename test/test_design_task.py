"""The task file of ``hrdf design`` (hrdf_ros.design.task): what it reads, and one line
naming the file, the key and the target for every way it can be wrong."""
import math

import numpy as np
import pytest
import yaml

from hrdf_ros.design import read_task, task
from hrdf_ros.kinematics.rotations import quaternion_to_rotation, rpy_to_rotation

EXAMPLE = {
    'targets': [{'xyz': [0.4, 0.0, 0.1], 'tip_axis': [0, 0, -2]},
                {'xyz': [0.3, 0.2, 0.3], 'rpy': [math.pi, 0.0, 0.5]},
                {'xyz': [0.2, -0.3, 0.2], 'quat': [0.0, 0.0, 0.0, 2.0]},
                {'xyz': [0.5, 0.0, 0.4]}],
    'payload': 1.5, 'margin': 0.1,
    'collision_objects': [{'name': 'wall', 'type': 'box', 'dimensions': [0.1, 1, 1],
                           'pose': {'position': [0.8, 0, 0.5]}}],
    'floor': -0.02, 'dof': [4, 6], 'families': ['R', 'X'], 'gripper': 'parallel'}


def test_a_task_file_is_read(tmp_path):
    path = tmp_path / 'task.yaml'
    path.write_text(yaml.safe_dump(EXAMPLE))
    job = read_task(str(path))
    assert [t.orientation for t in job.targets] == ['tip_axis', 'full', 'full', 'none']
    axis = job.targets[0].pose
    np.testing.assert_allclose(axis[:3, 2], [0, 0, -1], atol=1e-15)      # normalised
    np.testing.assert_allclose(axis[:3, :3].T @ axis[:3, :3], np.eye(3), atol=1e-15)
    assert np.linalg.det(axis[:3, :3]) > 0
    np.testing.assert_allclose(job.targets[1].pose[:3, :3], rpy_to_rotation(math.pi, 0, 0.5))
    np.testing.assert_allclose(job.targets[2].pose[:3, :3],
                               quaternion_to_rotation([0, 0, 0, 1]))
    np.testing.assert_array_equal(job.targets[3].pose[:3, :3], np.eye(3))
    np.testing.assert_array_equal(job.targets[3].position, [0.5, 0.0, 0.4])
    assert (job.payload, job.margin, job.dof, job.families, job.gripper) == \
        (1.5, 0.1, (4, 6), ('X', 'R'), 'parallel')
    assert [o['name'] for o in job.collision_objects] == ['wall', 'floor']
    assert job.collision_objects[1]['pose']['position'] == [0.0, 0.0, -0.02]
    with pytest.raises(ValueError):
        job.targets[0].pose[0, 0] = 2.0                     # read-only


def test_defaults():
    job = task({'targets': [{'xyz': [0.3, 0.0, 0.2]}]})
    assert (job.payload, job.margin, job.dof, job.families, job.gripper,
            job.collision_objects) == (0.0, 0.0, (3, 7), ('X', 'T', 'R'), 'none', ())


@pytest.mark.parametrize('change, words', [
    ({'targets': []}, 'targets must be a list of one or more targets'),
    ({'colour': 'red'}, "unknown key 'colour'"),
    ({'targets': [{'xyz': [0, 0, 0], 'size': 1}]}, "targets[0]: unknown key 'size'"),
    ({'targets': [{'tip_axis': [0, 0, 1]}]}, 'targets[0] needs xyz'),
    ({'targets': [{'xyz': [0, 0]}]}, 'targets[0].xyz must be 3 numbers'),
    ({'targets': [{'xyz': [0, 0, math.nan]}]}, 'targets[0].xyz must be finite numbers'),
    ({'targets': [{'xyz': [0, 0, 0], 'quat': [0, 0, 0, 0]}]},
     'targets[0].quat must not be zero'),
    ({'targets': [{'xyz': [0, 0, 0], 'tip_axis': [0, 0, 0]}]},
     'targets[0].tip_axis must not be zero'),
    ({'targets': [{'xyz': [0, 0, 0], 'rpy': [0, 0, 0], 'quat': [0, 0, 0, 1]}]},
     'give at most one of tip_axis, rpy, quat'),
    ({'payload': -1.0}, 'payload must be >= 0 kg'),
    ({'payload': math.inf}, 'payload must be a finite number'),
    ({'margin': 1.0}, 'margin must be in [0, 1)'),
    ({'dof': [2, 5]}, 'dof must be [least, most]'),
    ({'dof': [6, 4]}, 'dof must be [least, most]'),
    ({'families': ['Y']}, 'families must be a list of one or more of X, T, R'),
    ({'gripper': 'vacuum'}, 'gripper must be one of none, parallel'),
    ({'collision_objects': [{'name': 'a', 'type': 'cone'}]}, 'collision_objects: '),
    ({'floor': 'low'}, 'floor must be a finite number'),
])
def test_a_wrong_task_is_one_line_naming_the_file_and_key(tmp_path, change, words):
    path = tmp_path / 'task.yaml'
    path.write_text(yaml.safe_dump(dict({'targets': [{'xyz': [0.3, 0.0, 0.2]}]}, **change)))
    with pytest.raises(ValueError) as caught:
        read_task(str(path))
    message = str(caught.value)
    assert message.startswith(f'{path}: ') and words in message and '\n' not in message


def test_a_file_that_is_not_yaml_or_not_a_mapping(tmp_path):
    path = tmp_path / 'task.yaml'
    path.write_text('targets: [1, 2')
    with pytest.raises(ValueError, match='not YAML'):
        read_task(str(path))
    path.write_text('- 1\n- 2\n')
    with pytest.raises(ValueError, match='a task is a mapping'):
        read_task(str(path))
