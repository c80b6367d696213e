"""The robot description (hrdf_ros.description) is what the writers spell, exactly.

* The semantics (planning groups, named states, the collision matrix) are computed from
  the description's link tree and collision geometry, not from a URDF written and read
  back. For every kit, every real HEBI file hrdf_ros loads and the bundled arm, that link
  tree and that geometry equal what ``parse_urdf``/``urdf_collisions`` read from the
  URDF the description is written as: same links, joints, types, limits, mimic rules,
  the same shapes with bit-identical poses.
* The outputs of three robots are byte for byte the recorded ones (digests below):
  a change of any output shows here; scripts/output_digests.py compares every file of
  ``hrdf urdf|sdf|mjcf|moveit`` for all files hebi-py loads between two commits. Numbers
  are written to 12 digits from reproducible arithmetic (doc/explanation/conventions.md,
  "Numbers in files"), so neither the machine nor a numpy release moves a digest; a
  python-fcl release that decides a collision differently may (the SRDF's pairs).
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


#: sha256 (first 16 hex digits) of each output, taken after numbers got one rule and
#: reproducible arithmetic (issue 39; the double shoulder's yoke drawn around its
#: actuator, issue 46): meshes='primitives' (no machine's mesh paths), 500
#: collision samples, timestamp 0. The same under every BLAS kernel and SIMD dispatch
#: (test_same_bytes checks all outputs that way; here, a change of an output shows).
DIGESTS = {
    'x_series_arm_6dof': {
        'mjcf/robot.xml': '65e4c016233b8874', 'mjcf/scene.xml': '998cd93189a48057',
        'moveit': 'aa7818ee53df1f04', 'sdf': '48915b6c913c4497', 'urdf': '9f08db4538fa3483'},
    'A-2085-06G': {
        'mjcf/robot.xml': '9a1529242de29545', 'mjcf/scene.xml': 'ea9a3be800f65fc9',
        'moveit': 'a5943526249a6e71', 'sdf': 'c792b8a461c35016', 'urdf': '0dde3297d9727bfe'},
    'R-Series-Double-Shoulder-7DOF': {
        'mjcf/robot.xml': 'c98a1e7faee52ba6', 'mjcf/scene.xml': 'b54442b7f3ddec1f',
        'moveit': '03bdccc92015b174', 'sdf': '5ec7e99b95aa5d6d', 'urdf': '182cb95bae1f7fe8'},
}


def _outputs(path):
    model = _load(path)
    name = os.path.basename(path)[:-len('.hrdf')]
    texts = {'urdf': to_urdf(model, name, meshes='primitives'),
             'sdf': to_sdf(model, name, meshes='primitives')}
    for file_name, text in mjcf_files(model, name, meshes='primitives', samples=500).items():
        texts[f'mjcf/{file_name}'] = text
    package = moveit_package(model, name, meshes='primitives', samples=500, timestamp=0)
    texts['moveit'] = ''.join(f'{k}\n{v}' for k, v in sorted(package.files.items()))
    return {key: hashlib.sha256(text.encode()).hexdigest()[:16] for key, text in texts.items()}


@pytest.mark.parametrize('name', sorted(DIGESTS))
def test_outputs_are_byte_for_byte_the_recorded_ones(name):
    path = BUNDLED_ARM if name == 'x_series_arm_6dof' else os.path.join(KITS_DIR,
                                                                         name + '.hrdf')
    if not os.path.isfile(path):
        pytest.skip('../shared/hrdf/kits is not here')
    assert _outputs(path) == DIGESTS[name]
