"""``hrdf meshes fetch`` against a local HTTP server (127.0.0.1) serving the shared copy of
hebi_description, as an offline mirror would: every pinned file downloaded and checked
against its SHA-256, exports then use the cache; a corrupted file (digest mismatch) is an
error that leaves nothing in the cache; an unreachable server is one line and exit 2;
``hrdf meshes fetch FILE.hrdf`` downloads a robot's web meshes, which exports then write
as file:// URIs. The session's cache is a temporary folder (conftest)."""
import hashlib
import os
import socket
import xml.etree.ElementTree as ET

import pytest

from hrdf_ros.cli import main
from hrdf_ros.parts.hebi_mesh_files import FILES
from hrdf_ros.parts.mesh_sources import hebi_cache_folder, local_name, web_cache_folder

from hebi_description import HEBI_DESCRIPTION, require_hebi_description
from local_http import LocalServer

require_hebi_description()
KIT_HRDF = os.path.join(HEBI_DESCRIPTION, 'config', 'arms', 'hrdf', 'A-2085-06G.hrdf')


@pytest.fixture
def cache(tmp_path, monkeypatch):
    folder = tmp_path / 'cache'
    monkeypatch.setenv('HRDF_ROS_CACHE_DIR', str(folder))
    monkeypatch.delenv('AMENT_PREFIX_PATH', raising=False)
    return folder


@pytest.fixture
def mirror():
    served = LocalServer(HEBI_DESCRIPTION)
    yield served
    served.close()


def run(capsys, *args):
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


def files_in(folder):
    return sorted(os.path.relpath(os.path.join(d, f), folder)
                  for d, _, names in os.walk(folder) for f in names)


def digest(path):
    with open(path, 'rb') as handle:
        return hashlib.sha256(handle.read()).hexdigest()


def test_fetch_from_a_mirror_fills_the_cache_once(cache, mirror, capsys):
    code, out, err = run(capsys, 'meshes', 'fetch', '--url', mirror.url)
    assert code == 0, err
    assert err.strip() == (f'hrdf: note: {len(FILES)} HEBI mesh file(s) downloaded and '
                           f'checked, {len(FILES)} in {hebi_cache_folder()}')
    folder = hebi_cache_folder()
    assert files_in(cache) == sorted(os.path.relpath(os.path.join(folder, n), cache)
                                     for n in FILES)
    assert all(digest(os.path.join(folder, n)) == sha for n, (_, sha) in FILES.items())
    assert sorted(mirror.requests) == sorted(f'/meshes/{n}' for n in FILES)
    code, out, err = run(capsys, 'meshes', 'fetch', '--url', mirror.url)
    assert code == 0 and 'already in' in err and len(mirror.requests) == len(FILES)
    code, out, _ = run(capsys, 'meshes')
    assert 'in use: cache (cache)' in out
    code, urdf, err = run(capsys, 'urdf', KIT_HRDF)
    uris = {m.get('filename') for m in ET.fromstring(urdf).iter('mesh')}
    assert code == 0 and 'mesh' not in err and len(uris) == 13
    assert all(u.startswith('file://' + folder + '/') for u in uris)


def test_fetch_into_a_mesh_dir(cache, mirror, capsys, tmp_path):
    mine = tmp_path / 'mine'
    code, _, err = run(capsys, 'meshes', 'fetch', '--url', mirror.url, '--mesh-dir', mine)
    assert code == 0 and f'in {mine}' in err
    assert sorted(os.listdir(mine)) == sorted(FILES) and files_in(cache) == []
    code, urdf, _ = run(capsys, 'urdf', KIT_HRDF, '--mesh-dir', mine)
    uris = {m.get('filename') for m in ET.fromstring(urdf).iter('mesh')}
    assert len(uris) == 13 and all(u.startswith(f'file://{mine}/') for u in uris)


def corrupted_mirror(tmp_path, name):
    """A copy of the mirror layout (links) with one file's bytes changed."""
    root = tmp_path / 'mirror'
    (root / 'meshes').mkdir(parents=True)
    for file in FILES:
        source = os.path.join(HEBI_DESCRIPTION, 'meshes', file)
        if file == name:
            data = bytearray(open(source, 'rb').read())
            data[1000] ^= 0xFF
            (root / 'meshes' / file).write_bytes(bytes(data))
        else:
            os.symlink(source, root / 'meshes' / file)
    return root


def test_a_corrupted_file_is_an_error_and_nothing_stays(cache, tmp_path, capsys):
    name = 'T5.stl'          # late in the list: files before it were downloaded and checked
    served = LocalServer(corrupted_mirror(tmp_path, name))
    try:
        code, out, err = run(capsys, 'meshes', 'fetch', '--url', served.url)
    finally:
        served.close()
    assert code == 2 and not out
    assert len(err.strip().splitlines()) == 1
    assert err.startswith(f'hrdf: error: {served.url}/meshes/{name}: SHA-256 ')
    assert f'differs from the pinned {FILES[name][1]}' in err
    assert files_in(cache) == []


def test_an_unreachable_server_is_one_line_and_exit_2(cache, capsys):
    with socket.socket() as sock:            # a port nobody listens on
        sock.bind(('127.0.0.1', 0))
        url = f'http://127.0.0.1:{sock.getsockname()[1]}'
    code, out, err = run(capsys, 'meshes', 'fetch', '--url', url)
    assert code == 2 and not out
    assert len(err.strip().splitlines()) == 1
    assert err.startswith(f'hrdf: error: {url}/meshes/') and 'download failed' in err
    assert 'Traceback' not in err and files_in(cache) == []


#: A stand-in web mesh (a tetrahedron, 0.1 m).
TETRAHEDRON = 'v 0 0 0\nv 0.1 0 0\nv 0 0.1 0\nv 0 0 0.1\nf 1 3 2\nf 1 2 4\nf 1 4 3\nf 2 3 4\n'


def test_fetch_file_downloads_its_web_meshes_for_exports(cache, tmp_path, capsys):
    www = tmp_path / 'www' / 'meshes' / 'rosie'
    www.mkdir(parents=True)
    (www / 'body.obj').write_text(TETRAHEDRON)
    served = LocalServer(tmp_path / 'www')
    try:
        url = f'{served.url}/meshes/rosie/body.obj'
        robot = tmp_path / 'robot.hrdf'
        robot.write_text(f'<robot version="1.4.0"><rigid-body mass="2" mesh_path="{url}" '
                         f'mesh_rot="Rz(pi/2)"/><actuator type="X5-1"/></robot>')
        code, urdf, err = run(capsys, 'urdf', robot)
        link = ET.fromstring(urdf).find("link[@name='rigid_body1']")
        assert [m.get('filename') for m in link.iter('mesh')] == [url]   # visual only
        assert 'hrdf meshes fetch FILE.hrdf' in err
        code, out, err = run(capsys, 'meshes', 'fetch', robot)
        assert code == 0 and '1 web mesh(es) downloaded' in err
        copy = os.path.join(web_cache_folder(), local_name(url))
        assert open(copy).read() == TETRAHEDRON
        code, urdf, err = run(capsys, 'urdf', robot)
        link = ET.fromstring(urdf).find("link[@name='rigid_body1']")
        assert [m.get('filename') for m in link.iter('mesh')] == ['file://' + copy] * 2
        assert code == 0 and 'web mesh' not in err
        requests = len(served.requests)
        assert run(capsys, 'meshes', 'fetch', robot)[0] == 0
        assert len(served.requests) == requests                       # once
    finally:
        served.close()
    code, _, err = run(capsys, 'meshes', 'fetch', tmp_path / 'missing.hrdf')
    assert code == 1 and 'missing.hrdf' in err
