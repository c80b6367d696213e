"""HEBI's meshes in the programs that read the URDF, beyond the per-robot consumer tests
(which run every robot with HEBI's meshes as file:// URIs): what each consumer needs to
open ``package://hebi_description`` URIs (the shared copy laid out as a colcon install,
test/hebi_description.py), Pinocchio's visual geometry (it loads every mesh), and
MuJoCo's recipe to show the visuals it drops by default (doc/explanation/consumers.md).

Marker ``consumers`` (make test-consumers); .ci/run fails when any is skipped.
"""
import os

import pytest

from hrdf_ros import load, to_urdf
from hrdf_ros.parts.hebi_parts import part_pieces

from consumers import HEBI_MESHES, count_visual_meshes, mesh_folder
from conftest import KITS_DIR
from hebi_description import ament_prefix, require_hebi_description

require_hebi_description()
pytestmark = pytest.mark.consumers
GRIPPER_KIT = os.path.join(KITS_DIR, 'A-2085-06G.hrdf')
ROBOTS = ['A-2085-06G', 'A-2580-06G', 'A-2240-06', 'X-Series-Double-Shoulder-7DOF']


def write(tmp_path, model, **options):
    path = tmp_path / 'robot.urdf'
    text = to_urdf(model, 'robot', **options)
    path.write_text(text)
    return str(path), text


def hebi_pieces(model):
    return sum(p.mesh is not None for e in model.elements for p in part_pieces(e))


def test_package_uris_open_in_drake_pybullet_and_pinocchio(tmp_path, monkeypatch):
    """package://hebi_description/meshes/... : Drake with the package in its package map,
    PyBullet run from <prefix>/share (it drops ``package://`` and looks for the rest from
    the working directory and the URDF's folders; setAdditionalSearchPath is not used for
    meshes), Pinocchio with <prefix>/share as package dir."""
    pin = pytest.importorskip('pinocchio')
    p = pytest.importorskip('pybullet')
    pytest.importorskip('pydrake')
    from pydrake.geometry import Mesh, Role
    from pydrake.multibody.parsing import Parser
    from pydrake.multibody.plant import AddMultibodyPlantSceneGraph
    from pydrake.systems.framework import DiagramBuilder
    monkeypatch.setenv('AMENT_PREFIX_PATH', ament_prefix())
    share = os.path.join(ament_prefix(), 'share')
    model = load(GRIPPER_KIT)
    path, text = write(tmp_path, model)
    assert text.count('package://hebi_description/meshes/') == hebi_pieces(model) == 24

    builder = DiagramBuilder()
    plant, scene_graph = AddMultibodyPlantSceneGraph(builder, 0.0)
    parser = Parser(plant)
    parser.package_map().Add('hebi_description', os.path.join(share, 'hebi_description'))
    parser.AddModels(path)
    inspector = scene_graph.model_inspector()
    assert sum(isinstance(inspector.GetShape(g), Mesh)
               for g in inspector.GetAllGeometryIds(Role.kIllustration)) == 24

    client = p.connect(p.DIRECT)
    try:
        monkeypatch.chdir(share)
        body = p.loadURDF(path, useFixedBase=True, physicsClientId=client)
        shapes = p.getVisualShapeData(body, physicsClientId=client)
        loaded = [s[4].decode() for s in shapes if s[2] == p.GEOM_MESH]
        assert len(loaded) == 24 and all(os.path.isfile(f) for f in loaded)
    finally:
        p.disconnect(physicsClientId=client)

    pin_model = pin.buildModelFromUrdf(path)
    geometry = pin.buildGeomFromUrdf(pin_model, path, pin.GeometryType.VISUAL,
                                     package_dirs=[share])
    meshes = [g.meshPath for g in geometry.geometryObjects if os.path.isfile(g.meshPath)]
    assert len(meshes) == 24


@pytest.mark.parametrize('kit', ROBOTS)
def test_pinocchio_loads_every_visual_mesh(kit, tmp_path):
    pin = pytest.importorskip('pinocchio')
    model = load(os.path.join(KITS_DIR, kit + '.hrdf'))
    path, text = write(tmp_path, model, mesh_dir=mesh_folder(model, tmp_path / 'meshes'))
    pin_model = pin.buildModelFromUrdf(path)
    geometry = pin.buildGeomFromUrdf(pin_model, path, pin.GeometryType.VISUAL)
    # primitives have meshPath BOX, CYLINDER, SPHERE
    meshes = [g for g in geometry.geometryObjects if os.path.isfile(g.meshPath)]
    assert len(meshes) == count_visual_meshes(text) == hebi_pieces(model) > 0
    assert all(os.path.realpath(g.meshPath).startswith(os.path.realpath(HEBI_MESHES))
               for g in meshes)
    collision = pin.buildGeomFromUrdf(pin_model, path, pin.GeometryType.COLLISION)
    assert collision.ngeoms > 0
    assert not any(os.path.isfile(g.meshPath) for g in collision.geometryObjects)


def test_mujoco_shows_hebi_meshes_with_meshdir(tmp_path):
    """MuJoCo drops URDF visuals; with ``discardvisual="false" strippath="true"
    meshdir="<mesh folder>"`` in the URDF's ``<mujoco><compiler>`` it loads them."""
    mujoco = pytest.importorskip('mujoco')
    model = load(GRIPPER_KIT)
    folder = mesh_folder(model, tmp_path / 'meshes')
    path, text = write(tmp_path, model, mesh_dir=folder)
    assert mujoco.MjModel.from_xml_path(path).nmesh == 0
    recipe = text.replace('<compiler ', f'<compiler discardvisual="false" strippath="true" '
                                        f'meshdir="{folder}" ')
    (tmp_path / 'visuals.urdf').write_text(recipe)
    loaded = mujoco.MjModel.from_xml_path(str(tmp_path / 'visuals.urdf'))
    used = {p.mesh for e in model.elements for p in part_pieces(e) if p.mesh}
    assert loaded.nmesh == len(used) == 13
