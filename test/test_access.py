"""The reader under an access policy (hrdf_ros.hrdf.access), without ROS: files and
includes only from the allowed folders, one message whatever the reason, local meshes
outside not looked at; and the byte budget of a robot with its includes."""
import os

import pytest

from hrdf_ros import HrdfError, load, loads
from hrdf_ros.hrdf.access import REFUSED, FileAccess
from hrdf_ros.hrdf.includes import MAX_TOTAL_BYTES

ARM = '<robot version="1.3.0"><actuator type="X5-1"/><include path="{}"/></robot>'
PART = '<robot version="1.3.0"><link type="X5" extension="0.3" twist="0"/></robot>'


@pytest.fixture
def folders(tmp_path):
    inside, outside = tmp_path / 'inside', tmp_path / 'outside'
    inside.mkdir()
    outside.mkdir()
    (inside / 'part.hrdf').write_text(PART)
    (outside / 'secret.hrdf').write_text(PART)
    os.symlink(outside / 'secret.hrdf', inside / 'link.hrdf')
    (inside / 'folder').mkdir()
    return inside, outside, FileAccess.of([str(inside)])


def test_files_are_read_only_inside_and_refusals_are_alike(folders):
    inside, outside, access = folders
    (inside / 'arm.hrdf').write_text(ARM.format('part.hrdf'))
    assert load(str(inside / 'arm.hrdf'), access=access).dof_count == 1
    for path in (outside / 'secret.hrdf', inside / 'link.hrdf', inside / 'missing.hrdf',
                 inside / 'folder', f'{inside}/../outside/secret.hrdf'):
        with pytest.raises(HrdfError) as caught:
            load(str(path), access=access)
        assert [str(d) for d in caught.value.diagnostics] == [f'{path}:0:0: error: {REFUSED}']
    # without a policy the same files read as before
    assert load(str(outside / 'secret.hrdf')).dof_count == 0


@pytest.mark.parametrize('target', ['../outside/secret.hrdf', 'link.hrdf', 'missing.hrdf',
                                    'folder'])
def test_includes_stay_inside(folders, target):
    inside, _, access = folders
    with pytest.raises(HrdfError) as caught:
        loads(ARM.format(target), base_dir=str(inside), access=access)
    [error] = caught.value.errors
    assert error.element == 'include' and error.message.endswith(f': {REFUSED}')
    assert f'cannot include "{target}"' in error.message


def test_a_mesh_outside_is_not_looked_at(folders):
    inside, outside, access = folders
    text = ('<robot version="1.4.0"><rigid-body mass="1" mesh_path="{}"/></robot>')
    for mesh in ('../outside/nothing.stl', '../outside/secret.hrdf'):
        model = loads(text.format(mesh), base_dir=str(inside), access=access)
        assert [w.code for w in model.warnings] == []   # neither missing nor found
    model = loads(text.format('nothing.stl'), base_dir=str(inside), access=access)
    assert [w.code for w in model.warnings] == ['missing-mesh-file']


def test_a_robot_and_its_includes_hold_at_most_max_total_bytes(tmp_path):
    padding = ' ' * (MAX_TOTAL_BYTES // 3)
    for k in range(4):
        (tmp_path / f'p{k}.hrdf').write_text(f'<robot version="1.3.0">{padding}</robot>')
    text = '<robot version="1.3.0">' + ''.join(f'<include path="p{k}.hrdf"/>'
                                               for k in range(4)) + '</robot>'
    with pytest.raises(HrdfError, match=f'more than {MAX_TOTAL_BYTES} bytes'):
        loads(text, base_dir=str(tmp_path))
