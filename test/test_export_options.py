"""Export options around simulators: the physical fill report (URDF comment, hrdf info,
warnings), --exact-masses, joint limit overrides, hrdf sdf, and HRDF meshes (web meshes
never for collision, hrdf urdf --mesh-dir downloads them once from a local HTTP server,
missing local meshes drawn as primitives). No network: the HTTP server runs on
127.0.0.1. HEBI's part meshes and ``hrdf meshes``: test_mesh_sources.py,
test_mesh_fetch.py."""
import json
import os
import xml.etree.ElementTree as ET

import numpy as np
import pytest
from urdf_parser_py.urdf import URDF

from hrdf_ros import load, loads, to_urdf
from hrdf_ros.cli import main
from hrdf_ros.description.inertials import FILL_MASS, FILL_MOMENT
from hrdf_ros.description.limits import DEFAULT_JOINT_EFFORT, JointLimit, read_limits
from hrdf_ros.parts.mesh_fetch import MeshDownloadError
from hrdf_ros.parts.mesh_sources import MeshSourceError, local_name
from hrdf_ros.export.sdf import to_sdf
from hrdf_ros.hrdf.inertia import tensor_problem

from conftest import BUNDLED_ARM, KITS
from local_http import LocalServer

#: A Custom end effector without mass: HEBI gives its body and the end-effector frame none
CHAIN = '<robot version="1.2.0"><actuator type="X5-1"/><end-effector/></robot>'
POINT_MASS = ('<robot version="1.4.0"><actuator type="X5-1"/>'
              '<end-effector mass="0.5" com_trans="0 0 0.02"/></robot>')


def run(capsys, *args):
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def chain(tmp_path):
    path = tmp_path / 'chain.hrdf'
    path.write_text(CHAIN)
    return path


def test_urdf_reports_the_fill_and_exact_masses_removes_it(capsys, chain):
    code, out, err = run(capsys, 'urdf', chain)
    assert code == 0
    assert 'physical fill on 2 link(s)' in out            # the URDF comment
    assert 'hrdf: warning: end_effector_mount1: mass 0 -> 1e-05 kg' in err
    assert '--exact-masses' in err
    robot = URDF.from_xml_string(out)
    assert robot.link_map['end_effector'].inertial.mass == FILL_MASS
    code, out, err = run(capsys, 'urdf', chain, '--exact-masses')
    assert code == 0 and 'warning' not in err and 'physical fill' not in out
    assert URDF.from_xml_string(out).link_map['end_effector'].inertial is None
    assert 'preserveFixedJoint' not in out     # SDFormat would drop massless links


def test_info_reports_the_fill_as_text_and_json(capsys, chain):
    code, out, _ = run(capsys, 'info', chain)
    assert code == 0 and 'URDF physical fill: 2 link(s) (end_effector_mount1, ' \
        'end_effector), +2e-05 kg' in out
    code, out, _ = run(capsys, 'info', chain, '--json')
    fill = json.loads(out)['urdf_fill']
    assert [f['link'] for f in fill] == ['end_effector_mount1', 'end_effector']
    assert fill[0] == {'link': 'end_effector_mount1', 'added_mass': FILL_MASS,
                       'added_moment': pytest.approx(FILL_MOMENT, rel=1e-12)}


def test_point_masses_get_rotational_inertia_only():
    model = loads(POINT_MASS)
    inertial = URDF.from_xml_string(to_urdf(model)).link_map['end_effector_mount1'].inertial
    assert inertial.mass == 0.5
    i = inertial.inertia
    assert (i.ixx, i.iyy, i.izz) == (pytest.approx(FILL_MOMENT, rel=1e-12),) * 3
    assert tensor_problem((i.ixx, i.iyy, i.izz, i.ixy, i.ixz, i.iyz)) is None


def test_limit_overrides_and_defaults(tmp_path):
    model = loads('<robot version="1.2.0"><actuator type="X5-1"/><joint axis="tz"/>'
                  '<joint axis="rx"/><end-effector/></robot>')
    robot = URDF.from_xml_string(to_urdf(model))
    j = robot.joint_map
    assert j['J2'].limit.effort == DEFAULT_JOINT_EFFORT and j['J2'].limit.velocity > 0
    assert j['J3'].type == 'continuous' and j['J3'].limit is None      # unlimited
    limits = tmp_path / 'limits.yaml'
    limits.write_text('J1: {velocity: 1.5, effort: 2}\nJ2: {lower: -0.1, upper: 0.2, '
                      'velocity: 0.5}\nJ3: [-1, 1]\n')
    parsed = read_limits(str(limits))
    assert parsed['J1'] == JointLimit(velocity=1.5, effort=2.0)
    j = URDF.from_xml_string(to_urdf(model, position_limits=parsed)).joint_map
    assert (j['J1'].type, j['J1'].limit.velocity, j['J1'].limit.effort) == \
        ('continuous', 1.5, 2.0)
    assert (j['J2'].limit.lower, j['J2'].limit.upper, j['J2'].limit.velocity) == \
        (-0.1, 0.2, 0.5)
    assert j['J3'].type == 'revolute' and j['J3'].limit.effort == DEFAULT_JOINT_EFFORT
    for bad in ('J1: {lower: 1}\n', 'J1: {velocity: 0}\n', 'J1: {speed: 1}\n'):
        limits.write_text(bad)
        with pytest.raises(ValueError):
            read_limits(str(limits))


def test_hrdf_sdf_writes_frames_joints_and_inertials(capsys, tmp_path):
    out_path = tmp_path / 'arm.sdf'
    code, _, err = run(capsys, 'sdf', BUNDLED_ARM, '-o', out_path, '--name', 'arm')
    assert code == 0 and 'physical fill' in err
    model = ET.parse(out_path).getroot().find('model')
    assert model.get('name') == 'arm'
    frames = {f.get('name'): f.get('attached_to') for f in model.findall('frame')}
    assert frames == {'base_link': None, 'end_effector': 'end_effector_mount1'}
    joints = {j.get('name'): j.get('type') for j in model.findall('joint')}
    assert [n for n, t in joints.items() if t == 'revolute'] == [f'J{k}' for k in range(1, 7)]
    assert all(link.find('inertial/mass') is not None for link in model.findall('link'))
    assert to_sdf(load(BUNDLED_ARM), 'arm') == out_path.read_text()


# -- meshes ----------------------------------------------------------------------------
MESH = 'solid m\nendsolid m\n'


@pytest.fixture
def server(tmp_path):
    folder = tmp_path / 'www'
    (folder / 'meshes').mkdir(parents=True)
    (folder / 'meshes' / 'shell.stl').write_text(MESH)
    served = LocalServer(folder)
    yield served
    served.close()


def web_robot(url):
    return loads(f'<robot version="1.4.0"><actuator type="X5-1"/><rigid-body mass="0.2" '
                 f'com_trans="0 0 0.05" mesh_path="{url}" output_trans="0 0 0.1"/></robot>')


def test_web_meshes_are_drawn_but_never_collide():
    url = 'https://example.com/meshes/shell.stl'
    link = URDF.from_xml_string(to_urdf(web_robot(url))).link_map['rigid_body1']
    assert [v.geometry.filename for v in link.visuals] == [url]
    assert link.collisions and not any(hasattr(c.geometry, 'filename')
                                       for c in link.collisions)


def test_cli_mesh_dir_downloads_once_and_references_local_copies(capsys, server, tmp_path):
    url = f'{server.url}/meshes/shell.stl'
    path = tmp_path / 'robot.hrdf'
    path.write_text(f'<robot version="1.4.0"><actuator type="X5-1"/><rigid-body mass="0.2" '
                    f'com_trans="0 0 0.05" mesh_path="{url}" output_trans="0 0 0.1"/></robot>')
    mesh_dir = tmp_path / 'meshes'
    mesh_dir.mkdir()
    code, urdf, err = run(capsys, 'urdf', path, '--mesh-dir', mesh_dir)
    copy = mesh_dir / local_name(url)
    assert code == 0 and '1 web mesh(es) downloaded into' in err
    assert copy.read_text() == MESH and server.requests == ['/meshes/shell.stl']
    link = URDF.from_xml_string(urdf).link_map['rigid_body1']
    assert link.visuals[0].geometry.filename == 'file://' + str(copy)
    assert link.collisions[0].geometry.filename == 'file://' + str(copy)    # local: collides
    code, again, err = run(capsys, 'urdf', path, '--mesh-dir', mesh_dir)
    assert code == 0 and again == urdf and 'downloaded' not in err
    assert server.requests == ['/meshes/shell.stl']                   # not again
    # the API never downloads: it finds the copy, or keeps the URL
    assert to_urdf(web_robot(url), mesh_dir=str(mesh_dir)).count('file://' + str(copy)) == 2
    assert to_urdf(web_robot(url)).count(url) == 1
    assert server.requests == ['/meshes/shell.stl']
    from hrdf_ros.parts import mesh_fetch
    with pytest.raises(MeshDownloadError, match='limit'):
        mesh_fetch.download(url, str(tmp_path / 'x.stl'), max_bytes=4)
    assert not (tmp_path / 'x.stl').exists() and not list(tmp_path.glob('*.part'))


def test_cli_mesh_dir_errors_are_usage_errors(capsys, server, tmp_path):
    path = tmp_path / 'robot.hrdf'
    path.write_text(f'<robot version="1.4.0"><rigid-body mass="1" '
                    f'mesh_path="{server.url}/meshes/nope.stl"/></robot>')
    code, _, err = run(capsys, 'urdf', path, '--mesh-dir', tmp_path / 'cache')
    assert code == 2 and 'nope.stl' in err and '404' in err


def test_local_meshes_are_file_uris_and_missing_ones_become_primitives(capsys, tmp_path):
    (tmp_path / 'shell.stl').write_text(MESH)
    (tmp_path / 'robot.hrdf').write_text(
        '<robot version="1.4.0"><rigid-body mass="0.2" mesh_path="shell.stl" '
        'output_trans="0 0 0.1"/><rigid-body mass="0.2" mesh_path="gone.stl" '
        'output_trans="0 0 0.1"/></robot>')
    code, out, err = run(capsys, 'urdf', tmp_path / 'robot.hrdf')
    assert code == 0
    links = URDF.from_xml_string(out).link_map
    assert links['rigid_body1'].visuals[0].geometry.filename == \
        'file://' + str(tmp_path / 'shell.stl')
    assert links['rigid_body2'].visuals and not any(
        hasattr(v.geometry, 'filename') for v in links['rigid_body2'].visuals)
    assert 'missing-mesh-file' in err                                # located, at load
    assert 'rigid_body2: mesh file' in err and 'primitive shapes instead' in err


def test_local_name_is_confined_to_the_mesh_dir():
    assert local_name('https://h.example/a/../b/m%20x.stl?v=2') == \
        os.path.join('h.example', 'a', 'b', 'm_x_v_2.stl')
    with pytest.raises(MeshSourceError):
        local_name('https:///m.stl')


def test_every_kit_fill_keeps_total_mass_within_0_1_percent():
    from hrdf_ros.description.frame_tree import build_frame_tree
    from hrdf_ros.description.inertials import added_mass, link_inertials
    for path in KITS + [BUNDLED_ARM]:
        model = load(path)
        added = added_mass(link_inertials(model, build_frame_tree(model)))
        assert 0 < added <= 1e-3 * model.total_mass
        assert np.isclose(added / FILL_MASS, round(added / FILL_MASS))


def test_hrdf_inertias_breaking_the_triangle_inequality_are_made_physical():
    model = loads('<robot version="1.2.0"><actuator type="X5-1"/>'
                  '<rigid-body mass="0.5" ixx="1e-3" iyy="1e-3" izz="3e-3"/></robot>')
    assert [w.code for w in model.warnings] == ['nonphysical-inertia']
    i = URDF.from_xml_string(to_urdf(model)).link_map['rigid_body1'].inertial.inertia
    assert (i.ixx, i.iyy, i.izz) == pytest.approx((2e-3, 2e-3, 4e-3), rel=1e-12)
    assert tensor_problem((i.ixx, i.iyy, i.izz, i.ixy, i.ixz, i.iyz)) is None
    exact = URDF.from_xml_string(to_urdf(model, exact_masses=True))
    assert exact.link_map['rigid_body1'].inertial.inertia.izz == 3e-3
