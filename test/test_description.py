"""The robot description (hrdf_ros.description) is what the writers spell, exactly.

* The semantics (planning groups, named states, the collision matrix) are computed from
  the description's link tree and collision geometry, not from a URDF written and read
  back. For every kit, every real HEBI file hrdf_ros loads and the bundled arm, that link
  tree and that geometry equal what ``parse_urdf``/``urdf_collisions`` read from the
  URDF the description is written as: same links, joints, types, limits, mimic rules,
  the same shapes with bit-identical poses.
* The split of export/ into description/, parts/ and the writers changed no output:
  the digests below were computed at the commit before it (10516e8) with the same
  calls, and scripts/output_digests.py compared every file of ``hrdf urdf|sdf|mjcf|
  moveit`` for all 82 files hebi-py loads. One change came after, on purpose: the
  comment naming the module that documents the physical fill (export.inertials ->
  description.inertials); the test hashes the outputs with that name as it was. A numpy
  or python-fcl upgrade may change the last digit of a number and so a digest: compare
  against the previous release then.
"""
import hashlib
import os

import numpy as np
import pytest

from hrdf_ros import loads
from hrdf_ros.description.robot import describe
from hrdf_ros.export.mjcf import mjcf_files
from hrdf_ros.export.moveit import moveit_package
from hrdf_ros.export.sdf import to_sdf
from hrdf_ros.export.urdf import to_urdf, urdf_text
from hrdf_ros.export.urdf_structure import parse_urdf, urdf_collisions
from hrdf_ros.hrdf.diagnostics import HrdfError

from conftest import BUNDLED_ARM, KITS, KITS_DIR, kit_id
from consumers import real_files, real_id



def _load(path):
    with open(path, encoding='utf-8') as handle:
        text = handle.read()
    return loads(text, path=os.path.basename(path), base_dir=os.path.dirname(path))


def _loaded(paths):
    """The files hrdf_ros loads (some real files are invalid HRDF: test_real_files)."""
    for path in paths:
        try:
            yield path, _load(path)
        except HrdfError:
            continue


NAMES = {BUNDLED_ARM: 'bundled', **{p: kit_id(p) for p in KITS},
         **{p: real_id(p) for p in real_files()}}
ROBOTS = [(NAMES[path], model) for path, model in _loaded(NAMES)]


@pytest.mark.parametrize('model', [m for _, m in ROBOTS], ids=[i for i, _ in ROBOTS])
def test_link_tree_and_collision_geometry_are_the_urdfs(model):
    description = describe(model, 'robot')
    text = urdf_text(description)
    assert description.link_tree() == parse_urdf(text)
    mine, read = description.collision_geometry(), urdf_collisions(text)
    assert [link for link, _ in mine] == [link for link, _ in read]
    for (link, shapes), (_, expected) in zip(mine, read):
        assert len(shapes) == len(expected), link
        for shape, other in zip(shapes, expected):
            assert (shape.kind, shape.size, shape.filename, shape.error) == \
                (other.kind, other.size, other.filename, other.error), link
            assert np.array_equal(shape.pose, other.pose), link


def test_a_description_without_geometry_has_no_shapes_and_no_collision_links():
    description = describe(_load(BUNDLED_ARM), 'arm', geometry=False)
    assert description.shapes == {} and description.mesh_notes == []
    assert description.link_tree().collision_links == frozenset()
    assert len(description.link_tree().joints) == len(description.tree.joints)


#: sha256 (first 16 hex digits) of each output at 10516e8, the commit before the split:
#: meshes='primitives' (no machine's mesh paths), 500 collision samples, timestamp 0,
#: the model's path its file name.
DIGESTS = {
    'x_series_arm_6dof': {
        'mjcf/robot.xml': 'bd5c10b842095736', 'mjcf/scene.xml': '998cd93189a48057',
        'moveit': '33ce6336dbf4b5e6', 'sdf': '5d3ff2f5704bb2ea', 'urdf': 'e48a64fbd7aaec9c'},
    'A-2085-06G': {
        'mjcf/robot.xml': 'f254161fb2348104', 'mjcf/scene.xml': 'ea9a3be800f65fc9',
        'moveit': 'cc3e3ccd64842989', 'sdf': '16188157b8592311', 'urdf': 'be6305e9f3d8405b'},
    'R-Series-Double-Shoulder-7DOF': {
        'mjcf/robot.xml': '7b2b02d80f302f18', 'mjcf/scene.xml': 'b54442b7f3ddec1f',
        'moveit': '1e69aa1f708704c4', 'sdf': '6a1fd69031371fa3', 'urdf': '5a065a3eddefe288'},
}

#: The module named in the fill comment, as it is now and as it was at 10516e8.
RENAMED = ('hrdf_ros.description.inertials', 'hrdf_ros.export.inertials')


def _outputs(path):
    model = _load(path)
    name = os.path.basename(path)[:-len('.hrdf')]
    texts = {'urdf': to_urdf(model, name, meshes='primitives'),
             'sdf': to_sdf(model, name, meshes='primitives')}
    for file_name, text in mjcf_files(model, name, meshes='primitives', samples=500).items():
        texts[f'mjcf/{file_name}'] = text
    package = moveit_package(model, name, meshes='primitives', samples=500, timestamp=0)
    texts['moveit'] = ''.join(f'{k}\n{v}' for k, v in sorted(package.files.items()))
    return {key: hashlib.sha256(text.replace(*RENAMED).encode()).hexdigest()[:16]
            for key, text in texts.items()}


@pytest.mark.parametrize('name', sorted(DIGESTS))
def test_outputs_are_byte_for_byte_those_before_the_split(name):
    path = BUNDLED_ARM if name == 'x_series_arm_6dof' else os.path.join(KITS_DIR,
                                                                         name + '.hrdf')
    if not os.path.isfile(path):
        pytest.skip('../shared/hrdf/kits is not here')
    assert _outputs(path) == DIGESTS[name]
