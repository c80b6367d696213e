"""``hrdf view`` as a command, without a browser: exit codes, stdout's first line, signals,
no process left (by PID), no traceback; and the view's pieces that need no page (the
mesh resolver, the URDF scene's joints and poses, the file watcher).
"""
import os
import signal
import subprocess
import time

import numpy as np
import pytest

from browser import HRDF, ViewProcess
from cli_helpers import alive
from conftest import BUNDLED_ARM, KITS_DIR, WRITTEN_ATOL
from hebi_description import HEBI_DESCRIPTION, prefix_env, require_hebi_description
from hrdf_ros import Kinematics, load, to_urdf  # noqa: E402
from hrdf_ros.description.frame_tree import build_frame_tree

pytest.importorskip('viser', reason='the view extra (make env installs it)')
require_hebi_description()

BAD = '<robot version="1.2.0">\n  <actuator type="X5-77"/>\n</robot>\n'


def run_view(*args, timeout=60, **kwargs):
    return subprocess.run([HRDF, 'view', '--port', '0', *args], capture_output=True,
                          text=True, timeout=timeout, **kwargs)


def test_invalid_file_exits_1_with_the_located_errors_as_hrdf_validate(tmp_path):
    bad = tmp_path / 'bad.hrdf'
    bad.write_text(BAD)
    result = run_view(str(bad))
    assert result.returncode == 1 and result.stdout == ''
    assert result.stderr.startswith(f'hrdf view: loading {bad}\n')
    validate = subprocess.run([HRDF, 'validate', str(bad)], capture_output=True, text=True)
    located = [line for line in validate.stderr.splitlines() if ': error: ' in line]
    assert located and f'{bad}:2:3: error:' in located[0]
    assert result.stderr.splitlines()[1:] == located
    assert 'Traceback' not in result.stderr


@pytest.mark.parametrize('args,message', [
    (['missing.hrdf'], 'missing.hrdf'),
    ([BUNDLED_ARM, '--positions', '1 2'], '--positions has 2 values'),
    ([BUNDLED_ARM, '--port', '70000'], '--port must be 0..65535'),
    ([BUNDLED_ARM, '--host', 'no-such-host.invalid'], 'cannot listen on'),
    ([BUNDLED_ARM, '--limits', 'missing.yaml'], 'missing.yaml'),
])
def test_usage_problems_exit_2_with_one_line(tmp_path, args, message):
    result = run_view(*args, cwd=tmp_path)
    assert result.returncode == 2, result
    lines = result.stderr.splitlines()
    assert lines[0].startswith('hrdf view: loading ')
    assert len(lines) == 2 and message in lines[1], result.stderr
    assert result.stdout == ''


@pytest.mark.parametrize('sig', [signal.SIGINT, signal.SIGTERM])
def test_a_signal_ends_the_view_with_exit_0_and_nothing_left(sig):
    """At 5 moments of the first 1.2 s after the URL (the collision checks being built
    and warmed up in a thread: a process finalized under it aborted with "FATAL:
    exception not rethrown", 3 runs of 30): exit 0, nothing left, no traceback."""
    for delay in (0.0, 0.3, 0.6, 0.9, 1.2):
        view = ViewProcess([BUNDLED_ARM])
        try:
            print(f'URL after {view.started:.2f} s, server RSS {view.rss_kib() / 1024:.0f} MiB')
            time.sleep(delay)
            code, _, left = view.stop(sig)      # waited for up to 30 s (its hang guard)
            assert (code, left) == (0, []), (delay, view.stderr()[-2000:])
            assert view.rest == [] and 'Traceback' not in view.stderr()
        finally:
            view.close()


@pytest.mark.parametrize('delay', [0.0, 0.3, 0.8])
def test_ctrl_c_while_starting_exits_0(delay):
    """SIGINT while the file loads or the server starts (after "hrdf view: loading",
    the first thing the command does): exit 0, no traceback. (Before that line, Python
    is still importing hrdf_ros, as any Python program would: not tested.)"""
    process = subprocess.Popen([HRDF, 'view', '--port', '0', BUNDLED_ARM],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert process.stderr.readline().startswith('hrdf view: loading ')
    time.sleep(delay)
    process.send_signal(signal.SIGINT)
    out, err = process.communicate(timeout=60)
    assert process.returncode == 0, err
    assert 'Traceback' not in err and len(out.splitlines()) <= 1
    assert not alive(process.pid)


def test_second_ctrl_c_during_the_stop_changes_nothing():
    view = ViewProcess([BUNDLED_ARM])
    try:
        view.process.send_signal(signal.SIGINT)
        time.sleep(0.05)
        view.process.send_signal(signal.SIGINT)
        assert view.process.wait(30) == 0
        assert 'Traceback' not in view.stderr()
    finally:
        view.close()


# -- the pieces -------------------------------------------------------------------------

def test_mesh_references_resolve_like_resource_retriever(tmp_path, monkeypatch):
    from hrdf_ros.view.mesh_files import MeshNotFound, resolve_mesh
    mesh = tmp_path / 'part.stl'
    mesh.write_text('solid x\nendsolid x\n')
    assert resolve_mesh(f'file://{mesh}') == str(mesh)
    assert resolve_mesh('part.stl', str(tmp_path)) == str(mesh)
    monkeypatch.setenv('AMENT_PREFIX_PATH', prefix_env()['AMENT_PREFIX_PATH'])
    assert os.path.samefile(resolve_mesh('package://hebi_description/meshes/X5.stl'),
                            os.path.join(HEBI_DESCRIPTION, 'meshes', 'X5.stl'))
    for reference, why in (('https://example.com/a.stl', 'web mesh'),
                           ('package://no_such_package/a.stl', 'no package'),
                           (f'file://{tmp_path}/none.stl', 'no such file'),
                           ('ftp://host/a.stl', 'unsupported')):
        with pytest.raises(MeshNotFound, match=why):
            resolve_mesh(reference)


def test_scene_poses_equal_hrdf_ros_kinematics():
    """The drawn link poses (URDF joints, yourdfpy) equal hrdf_ros's own FK: the end
    effector and every element's input frame, at a random configuration."""
    from hrdf_ros.view.robot_scene import RobotScene

    model = load(os.path.join(KITS_DIR, 'A-2099-07G.hrdf'))
    tree = build_frame_tree(model)
    scene = RobotScene(_Scene(), to_urdf(model, 'arm', tree=tree))
    assert [j.name for j in scene.joints] == tree.dof_names + ['gripper_joint']
    q = np.random.default_rng(7).uniform(-2, 2, model.dof_count)
    poses = scene.link_poses(dict(zip(tree.dof_names, q)))
    kinematics = Kinematics(model)
    np.testing.assert_allclose(poses['end_effector'], kinematics.end_effector(q),
                               atol=WRITTEN_ATOL, rtol=0)
    inputs = kinematics.frames('input', q)
    for k, link in enumerate(tree.element_links):
        np.testing.assert_allclose(poses[link], inputs[k], atol=WRITTEN_ATOL, rtol=0)


def test_mimic_joints_follow_their_joint_and_get_no_slider():
    from hrdf_ros.view.robot_scene import RobotScene, movable_joints, parse_urdf
    urdf = '''<robot name="g">
      <link name="base"/><link name="left"/><link name="right"/><link name="arm"/>
      <joint name="j" type="revolute"><parent link="base"/><child link="arm"/>
        <axis xyz="0 0 1"/><limit lower="-1" upper="2" effort="1" velocity="1"/></joint>
      <joint name="finger" type="prismatic"><parent link="arm"/><child link="left"/>
        <axis xyz="0 1 0"/><limit lower="0" upper="0.04" effort="1" velocity="1"/></joint>
      <joint name="finger_mimic" type="prismatic"><parent link="arm"/><child link="right"/>
        <axis xyz="0 1 0"/><limit lower="-0.04" upper="0" effort="1" velocity="1"/>
        <mimic joint="finger" multiplier="-1" offset="0.001"/></joint>
      <joint name="free" type="continuous"><parent link="base"/><child link="x"/>
        <axis xyz="1 0 0"/></joint><link name="x"/>
    </robot>'''
    joints = movable_joints(parse_urdf(urdf))
    assert [(j.name, j.lower, j.upper) for j in joints] == [
        ('j', -1.0, 2.0), ('finger', 0.0, 0.04), ('free', -np.pi, np.pi)]
    scene = RobotScene.__new__(RobotScene)
    scene.urdf, scene.joints, scene.root_link = parse_urdf(urdf), joints, 'base'
    scene.links = ['base', 'left', 'right', 'arm', 'x']
    poses = scene.link_poses({'j': 0.0, 'finger': 0.03})
    assert poses['left'][1, 3] == pytest.approx(0.03)
    assert poses['right'][1, 3] == pytest.approx(-0.03 + 0.001)


def test_watcher_reports_a_change_once_it_is_complete(tmp_path):
    from hrdf_ros.view.watch import FileWatcher
    a, b = tmp_path / 'a.hrdf', tmp_path / 'b.hrdf'
    a.write_text('1')
    watcher = FileWatcher([str(a), str(b)])
    assert not watcher.changed()
    a.write_text('22')
    assert not watcher.changed()     # seen once: wait for it to stay
    assert watcher.changed()
    assert not watcher.changed()
    b.write_text('created')
    assert not watcher.changed() and watcher.changed()
    a.unlink()
    assert not watcher.changed() and watcher.changed()


def test_display_meshes_are_simplified_but_keep_their_shape():
    import trimesh
    from hrdf_ros.view.robot_scene import MAX_DISPLAY_FACES, display_mesh
    mesh = trimesh.load(os.path.join(HEBI_DESCRIPTION, 'meshes', 'X8.stl'), force='mesh')
    assert len(mesh.faces) > 2 * MAX_DISPLAY_FACES
    shown = display_mesh(mesh)
    assert len(shown.faces) <= MAX_DISPLAY_FACES
    np.testing.assert_allclose(shown.bounds, mesh.bounds, atol=0.02 * max(mesh.extents))
    small = trimesh.creation.box(extents=(1, 2, 3))
    assert display_mesh(small) is small


def test_a_mesh_file_is_read_once_until_it_changes(tmp_path):
    """A mesh file read for the view is kept (a reload does not read it again), handed
    out as copies (changing one changes no other), and read again once the file on disk
    changes."""
    import trimesh
    import yourdfpy
    from hrdf_ros.view.robot_scene import _mesh_file, shape_mesh
    path = tmp_path / 'part.stl'
    trimesh.creation.box(extents=(0.1, 0.2, 0.3)).export(path)
    geometry = yourdfpy.Geometry(mesh=yourdfpy.Mesh(filename=str(path), scale=0.5))
    before = _mesh_file.cache_info()
    first = shape_mesh(geometry)
    second = shape_mesh(geometry)
    after = _mesh_file.cache_info()
    assert (after.misses - before.misses, after.hits - before.hits) == (1, 1)
    np.testing.assert_allclose(first.extents, (0.05, 0.1, 0.15), atol=1e-12)
    first.apply_scale(2.0)
    np.testing.assert_allclose(shape_mesh(geometry).extents, (0.05, 0.1, 0.15), atol=1e-12)
    np.testing.assert_allclose(second.extents, (0.05, 0.1, 0.15), atol=1e-12)
    trimesh.creation.box(extents=(0.4, 0.2, 0.3)).export(path)
    np.testing.assert_allclose(shape_mesh(geometry).extents, (0.2, 0.1, 0.15), atol=1e-12)


class _Scene:
    """A viser scene stand-in that only hands out handles: for tests of what the view
    computes (poses, shapes, notes), not of what the browser shows."""

    def __getattr__(self, name):
        return lambda *args, **kwargs: _Handle()


class _Handle:
    visible = True

    def remove(self):
        pass


def test_a_web_mesh_is_drawn_with_the_collision_shapes_and_a_note():
    from hrdf_ros.view.robot_scene import RobotScene
    urdf = '''<robot name="r"><link name="base_link"><visual><geometry>
      <mesh filename="https://example.com/part.stl"/></geometry></visual>
      <collision><geometry><box size="0.1 0.2 0.3"/></geometry></collision></link></robot>'''
    scene = RobotScene(_Scene(), urdf)
    [note] = scene.notes
    assert 'web mesh' in note and 'collision shapes instead' in note
    scene.set_link_poses({'base_link': np.eye(4)})
    np.testing.assert_allclose(scene.bounds(), [[-0.05, -0.1, -0.15], [0.05, 0.1, 0.15]])


def test_live_reload_watches_the_included_files():
    from types import SimpleNamespace

    from conftest import HEXAPOD, HEXAPOD_DIR
    from hrdf_ros.view.file_view import FileView, ViewOptions
    model = load(HEXAPOD)
    watched = FileView._watched(SimpleNamespace(path=HEXAPOD, options=ViewOptions()), model)
    included = {os.path.realpath(e.path) for e in model.elements if e.path} - {
        os.path.realpath(HEXAPOD)}
    assert included and included <= {os.path.realpath(p) for p in watched}
    assert all(os.path.realpath(p).startswith(os.path.realpath(HEXAPOD_DIR)) for p in watched)


def test_with_an_access_policy_meshes_outside_are_refused_alike(tmp_path):
    """hrdf_ros_web_view's rule: a robot_description from the ROS graph may name any file
    as a mesh; outside the allowed folders nothing is read, and a missing file gets the
    same note as an existing one."""
    from hrdf_ros.hrdf.access import REFUSED, FileAccess
    from hrdf_ros.view.mesh_files import MeshNotFound, resolve_mesh
    from hrdf_ros.view.robot_scene import RobotScene
    inside = tmp_path / 'meshes'
    inside.mkdir()
    box = inside / 'box.stl'
    import trimesh
    trimesh.creation.box(extents=(0.1, 0.1, 0.1)).export(str(box))
    access = FileAccess.of([str(inside)])
    assert resolve_mesh(f'file://{box}', access=access) == str(box)
    os.symlink('/etc/passwd', inside / 'out.stl')
    for reference in ('file:///etc/passwd', '/etc/passwd', f'file://{inside}/out.stl',
                      f'file://{inside}/../../../../../../etc/passwd',
                      f'file://{inside}/missing.stl', 'file:///no/such/file.stl'):
        with pytest.raises(MeshNotFound) as caught:
            resolve_mesh(reference, access=access)
        assert str(caught.value) == f'{reference}: {REFUSED}'
    urdf = ('<robot name="r"><link name="a"><visual><geometry><mesh filename='
            '"file:///etc/passwd"/></geometry></visual></link></robot>')

    class Scene:        # what RobotScene asks of viser's scene: frames and meshes
        def add_frame(self, *args, **kwargs):
            return object()

        def add_mesh_simple(self, *args, **kwargs):
            raise AssertionError('nothing may be drawn from /etc/passwd')
    scene = RobotScene(Scene(), urdf, access=access)
    assert scene.notes == [f'link a: file:///etc/passwd: {REFUSED}; not drawn']
