"""One rule for where HEBI's meshes come from (hrdf_ros.parts.mesh_sources), in the API,
``hrdf urdf|sdf|moveit``, the xacro macro and the node: mesh_dir / HRDF_ROS_MESH_DIR,
then hebi_description through the real ament index (the shared copy laid out as a colcon
install, test/hebi_description.py), then the user cache, then primitives with one note;
``meshes='primitives'`` and ``'package'``; ``package://`` URIs resolved by
ament_index_python; :func:`local_mesh_path` for viewers. The session's cache is a
temporary folder (conftest)."""
import os
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET

import pytest

from hrdf_ros import load, to_urdf, to_xacro
from hrdf_ros.cli import main
from hrdf_ros.parts.hebi_mesh_files import FILES
from hrdf_ros.parts.hebi_parts import COLOURS, part_pieces
from hrdf_ros.parts.mesh_sources import (MeshSourceError, hebi_cache_folder, local_mesh_path,
                                         mesh_source, package_share, web_cache_folder)
from hrdf_ros.export.sdf import to_sdf

from conftest import KITS_DIR
from hebi_description import HEBI_DESCRIPTION, ament_prefix, prefix_env, require_hebi_description

require_hebi_description()
MESHES = os.path.join(HEBI_DESCRIPTION, 'meshes')
KIT = os.path.join(KITS_DIR, 'A-2085-06G.hrdf')


def mesh_filenames(text):
    """Every mesh filename / uri of a URDF or SDF document."""
    root = ET.fromstring(text)
    return [m.get('filename') for m in root.iter('mesh') if m.get('filename')] + \
        [u.text for u in root.iter('uri')]


@pytest.fixture
def cache(tmp_path, monkeypatch):
    """An empty user cache of this test."""
    folder = tmp_path / 'cache'
    monkeypatch.setenv('HRDF_ROS_CACHE_DIR', str(folder))
    return folder


def filled_cache(cache):
    folder = hebi_cache_folder()
    os.makedirs(folder)
    for name in FILES:
        shutil.copy(os.path.join(MESHES, name), folder)
    return folder


def test_the_rule_takes_the_first_source_found(cache, tmp_path, monkeypatch):
    monkeypatch.delenv('AMENT_PREFIX_PATH', raising=False)
    assert mesh_source().kind == 'primitives'
    filled_cache(cache)
    assert (mesh_source().kind, mesh_source().origin) == ('cache', 'cache')
    monkeypatch.setenv('AMENT_PREFIX_PATH', ament_prefix())
    assert (mesh_source().kind, mesh_source().origin) == ('package', 'ament index')
    monkeypatch.setenv('HRDF_ROS_MESH_DIR', HEBI_DESCRIPTION)   # a checkout: meshes/ inside
    source = mesh_source()
    assert (source.kind, source.origin, source.folder) == ('mesh_dir', 'HRDF_ROS_MESH_DIR',
                                                           MESHES)
    other = tmp_path / 'mine'
    other.mkdir()
    source = mesh_source(str(other))
    assert (source.origin, source.folder) == ('mesh_dir', str(other))
    assert mesh_source(str(other), 'primitives').kind == 'primitives'
    assert mesh_source(str(other), 'package').reference('X5.stl') == \
        'package://hebi_description/meshes/X5.stl'
    with pytest.raises(MeshSourceError, match='not a folder'):
        mesh_source(str(tmp_path / 'nowhere'))
    monkeypatch.setenv('HRDF_ROS_MESH_DIR', str(tmp_path / 'nowhere'))
    with pytest.raises(MeshSourceError, match='HRDF_ROS_MESH_DIR .*not a folder'):
        mesh_source()
    with pytest.raises(MeshSourceError, match='meshes must be one of'):
        mesh_source(meshes='stl')


def test_package_uris_resolve_through_the_real_ament_index(cache, monkeypatch):
    """With hebi_description installed (the shared copy as a colcon install prefix),
    exports write package:// URIs, and ament_index_python (what ROS's resource_retriever
    uses) resolves each to a file of the package."""
    from ament_index_python.packages import get_package_share_directory
    monkeypatch.setenv('AMENT_PREFIX_PATH', prefix_env()['AMENT_PREFIX_PATH'])
    share = get_package_share_directory('hebi_description')
    assert package_share('hebi_description') == share
    model = load(KIT)
    for text in (to_urdf(model, 'kit'), to_sdf(model, 'kit'), to_xacro(model, 'kit')):
        uris = mesh_filenames(text) or [f for f in text.split('"') if f.startswith('package:')]
        assert uris and all(u.startswith('package://hebi_description/meshes/') for u in uris)
        for uri in set(uris):
            path = os.path.join(share, uri[len('package://hebi_description/'):])
            assert os.path.isfile(path), uri
            assert local_mesh_path(uri) == path
            assert os.path.realpath(path) == os.path.join(MESHES, os.path.basename(uri))


def test_mesh_dir_writes_file_uris_and_primitives_for_missing_files(cache, tmp_path):
    partial = tmp_path / 'partial'
    partial.mkdir()
    shutil.copy(os.path.join(MESHES, 'X8.stl'), partial)
    urdf = to_urdf(load(KIT), 'kit', mesh_dir=str(partial))
    assert set(mesh_filenames(urdf)) == {'file://' + str(partial / 'X8.stl')}
    full = to_urdf(load(KIT), 'kit', mesh_dir=MESHES)
    assert all(f.startswith('file://' + MESHES + '/') and local_mesh_path(f)
               for f in mesh_filenames(full))
    # the collision geometry does not depend on where the meshes come from
    def collisions(text):
        return [ET.tostring(c) for c in ET.fromstring(text).iter('collision')]
    assert collisions(urdf) == collisions(full) == collisions(
        to_urdf(load(KIT), 'kit', meshes='primitives'))


def run(capsys, *args):
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


def test_without_meshes_one_note_says_how_to_get_them(cache, capsys, monkeypatch):
    monkeypatch.delenv('AMENT_PREFIX_PATH', raising=False)
    code, out, err = run(capsys, 'urdf', KIT)
    assert code == 0 and not mesh_filenames(out)
    notes = [line for line in err.splitlines() if 'mesh' in line]
    assert len(notes) == 1 and notes[0].startswith('hrdf: note: HEBI part meshes not found')
    assert '`hrdf meshes fetch`' in notes[0]
    # primitives coloured like the parts: red X-series housings, black brackets
    root = ET.fromstring(out)
    colours = {m.get('name') for m in root.iter('material')}
    assert {'hebi_red', 'hebi_black', 'hebi_silver'} <= colours <= set(COLOURS)
    code, out, err = run(capsys, 'urdf', KIT, '--meshes', 'primitives')
    assert code == 0 and not mesh_filenames(out) and 'mesh' not in err
    code, out, err = run(capsys, 'urdf', KIT, '--mesh-dir', MESHES)
    used = {p.mesh for e in load(KIT).elements for p in part_pieces(e) if p.mesh}
    assert len(used) == 13          # X8, X5, 3 bracket plates, 2 link caps, 6 gripper parts
    assert set(mesh_filenames(out)) == {f'file://{MESHES}/{name}' for name in used}
    assert code == 0 and 'mesh' not in err
    code, _, err = run(capsys, 'sdf', KIT, '--mesh-dir', '/nonexistent/folder')
    assert code == 2 and err.strip() == 'hrdf: error: mesh_dir /nonexistent/folder: not a folder'


def test_hebi_meshes_option_is_deprecated_for_meshes_package(cache, capsys):
    code, out, err = run(capsys, 'urdf', KIT, '--hebi-meshes')
    assert code == 0 and 'hrdf: note: --hebi-meshes is deprecated: it means --meshes package' \
        in err
    code, package, _ = run(capsys, 'urdf', KIT, '--meshes', 'package')
    assert package == out
    assert all(f.startswith('package://') for f in mesh_filenames(out))
    assert 'hebi_description is not on AMENT_PREFIX_PATH here' in err


def test_hrdf_meshes_reports_each_source(cache, capsys, monkeypatch):
    monkeypatch.delenv('AMENT_PREFIX_PATH', raising=False)
    code, out, _ = run(capsys, 'meshes')
    assert code == 0 and 'in use: primitives' in out and 'not set' in out
    filled_cache(cache)
    os.remove(os.path.join(hebi_cache_folder(), 'X5.stl'))
    code, out, _ = run(capsys, 'meshes')
    assert f'cache: {hebi_cache_folder()} (22 of 23 files' in out
    assert 'in use: cache' in out and 'missing there (drawn as primitives): X5.stl' in out
    monkeypatch.setenv('AMENT_PREFIX_PATH', ament_prefix())
    code, out, _ = run(capsys, 'meshes')
    assert 'in use: package (ament index)' in out and '(23 of 23 files)' in out
    code, out, _ = run(capsys, 'meshes', '--mesh-dir', MESHES)
    assert f'in use: mesh_dir (mesh_dir): {MESHES}' in out


def test_local_mesh_path_for_viewers(cache, tmp_path, monkeypatch):
    monkeypatch.setenv('AMENT_PREFIX_PATH', ament_prefix())
    x5 = os.path.join(MESHES, 'X5.stl')
    assert local_mesh_path('file://' + x5) == x5 == local_mesh_path(x5)
    assert os.path.realpath(local_mesh_path('package://hebi_description/meshes/X5.stl')) == x5
    assert local_mesh_path('package://hebi_description/meshes/nope.stl') is None
    assert local_mesh_path('package://not_a_package/x.stl') is None
    url = 'https://files.example.com/meshes/body.obj'
    assert local_mesh_path(url) is None
    copy = os.path.join(web_cache_folder(), 'files.example.com', 'meshes', 'body.obj')
    os.makedirs(os.path.dirname(copy))
    open(copy, 'w').close()
    assert local_mesh_path(url) == copy
    assert local_mesh_path('ftp://x/y.stl') is None


def test_node_parameters_mesh_dir_and_meshes(cache, tmp_path):
    """The node applies the same rule: ``mesh_dir`` gives file:// URIs; a bad ``meshes``
    or ``mesh_dir`` stops it at start with one message (exit 1)."""
    from hrdf_ros.ros.loaded_robot import RobotOptions, load_robot
    robot = load_robot(RobotOptions(mesh_dir=MESHES), path=KIT)
    assert robot.urdf == to_urdf(load(KIT), 'A-2085-06G', mesh_dir=MESHES)
    robot = load_robot(RobotOptions(), path=KIT)
    assert any(n.startswith('meshes: HEBI part meshes not found') for n in robot.export_notes)
    for parameter, expected in (('meshes:=stl', 'meshes must be one of auto, package, '
                                                'primitives, got "stl"'),
                                (f'mesh_dir:={tmp_path}/none', 'not a folder')):
        result = subprocess.run([sys.executable, '-m', 'hrdf_ros.ros.node', '--ros-args',
                                 '-p', f'hrdf_file:={KIT}', '-p', parameter],
                                capture_output=True, text=True, timeout=60)
        assert result.returncode == 1 and expected in result.stderr, result.stderr
        assert 'Traceback' not in result.stderr
