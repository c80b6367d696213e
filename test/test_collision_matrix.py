"""The self-collision matrix against a direct check: for every kit, both hexapods and the
loadable real files, at 1 000 fresh random configurations (another seed) checked with
python-fcl's own broad phase on every shape (no bounding boxes of ours), no pair left
enabled collides at the default (zero) state, no pair marked Never collides in more than
0.1 % of them, and our checker finds exactly the colliding pairs FCL finds (adjacent
pairs aside). Plus each
reason on hand-made URDFs, and mesh geometry read from STL/OBJ files."""
import struct
import xml.etree.ElementTree as ET

import fcl
import numpy as np
import pytest

from hrdf_ros import load, to_urdf
from hrdf_ros.description.frame_tree import build_frame_tree
from hrdf_ros.export.moveit import moveit_package
from hrdf_ros.description.collision_matrix import CollisionChecker, adjacent_pairs, \
    collision_matrix
from hrdf_ros.description.collision_shapes import collision_shapes
from hrdf_ros.description.link_poses import LinkPoser
from hrdf_ros.export.urdf_structure import parse_urdf, urdf_collisions

from conftest import BUNDLED_ARM
from moveit_robots import NAMES, ROBOTS, generated

FRESH = 1000
NEVER_TOLERANCE = 0.001


def direct_collisions(shapes, poses):
    """Per configuration, the set of colliding link pairs by FCL's DynamicAABBTree
    broad phase over every shape."""
    objects = [fcl.CollisionObject(s.geometry, fcl.Transform()) for s in shapes.shapes]
    owner = {id(s.geometry): shapes.links[s.link] for s in shapes.shapes}
    manager = fcl.DynamicAABBTreeCollisionManager()
    manager.registerObjects(objects)
    manager.setup()
    found = []
    for pose in poses:
        for shape, obj in zip(shapes.shapes, objects):
            placed = pose[shape.link] @ shape.shape_pose
            obj.setTranslation(placed[:3, 3])
            obj.setRotation(placed[:3, :3])
        manager.update()
        data = fcl.CollisionData(request=fcl.CollisionRequest(num_max_contacts=100000))
        manager.collide(data, fcl.defaultCollisionCallback)
        pairs = {tuple(sorted((owner[id(c.o1)], owner[id(c.o2)])))
                 for c in data.result.contacts}
        found.append({p for p in pairs if p[0] != p[1]})
    return found


@pytest.mark.parametrize('path', ROBOTS, ids=NAMES)
def test_matrix_agrees_with_a_direct_check(path):
    model, package = generated(path)
    text = package.files[f'config/{package.robot_name}.urdf']
    urdf = parse_urdf(text)
    poser = LinkPoser(model, build_frame_tree(model), urdf)
    shapes = collision_shapes(urdf_collisions(text))
    disabled = package.disabled
    opaque = set(shapes.opaque)
    links = sorted(shapes.links)
    pairs = [(a, b) for i, a in enumerate(links) for b in links[i + 1:]]
    enabled = [p for p in pairs if p not in disabled and not set(p) & opaque]

    at_default = direct_collisions(shapes, poser.poses(shapes.links,
                                                       poser.default_values()[None]))[0]
    assert not at_default & set(enabled)

    values = poser.random_values(np.random.default_rng(20260101), FRESH)
    direct = direct_collisions(shapes, poser.poses(shapes.links, values))
    counts = {}
    for found in direct:
        for pair in found:
            counts[pair] = counts.get(pair, 0) + 1
    never = {p: counts.get(p, 0) for p, r in disabled.items() if r == 'Never'}
    assert max(never.values(), default=0) <= NEVER_TOLERANCE * FRESH, \
        {p: c for p, c in never.items() if c}
    always = [p for p, r in disabled.items() if r == 'Always']
    assert all(counts.get(p, 0) > FRESH / 2 for p in always)

    # our bounding-box culling loses nothing: the same pairs as FCL's broad phase (but
    # adjacent ones: their shapes touch, and FCL's verdict on touching shapes depends on
    # the argument order, which its broad phase chooses)
    checked = [p for p in pairs if not set(p) & opaque and disabled.get(p) != 'Adjacent']
    mine = CollisionChecker(shapes, poser).colliding(values, checked, False)
    for n, found in enumerate(direct):
        assert {p for k, p in enumerate(checked) if mine[n, k]} == found & set(checked)


GRIPPER_ROBOTS = [p for p in ROBOTS if build_frame_tree(load(p)).grippers]


@pytest.mark.parametrize('path', GRIPPER_ROBOTS,
                         ids=[n for p, n in zip(ROBOTS, NAMES) if p in GRIPPER_ROBOTS])
def test_matrix_holds_with_the_gripper_open_and_closed(path):
    """At fresh random arm states with the gripper fully open, then fully closed (FCL's
    own broad phase): no pair left enabled collides at the default state, no Never pair
    collides in more than 0.1 % of them; the sampling itself drew both ends."""
    model, package = generated(path)
    text = package.files[f'config/{package.robot_name}.urdf']
    poser = LinkPoser(model, build_frame_tree(model), parse_urdf(text))
    shapes = collision_shapes(urdf_collisions(text))
    assert poser.gripper_columns
    drawn = poser.random_values(np.random.default_rng(0), 300)
    for column in poser.gripper_columns:
        assert (drawn[:, column] == poser.lower[column]).sum() > 50
        assert (drawn[:, column] == poser.upper[column]).sum() > 50
    never = [p for p, r in package.disabled.items() if r == 'Never']
    gripper_links = {link for g in build_frame_tree(model).grippers
                     for link in g.links.values()}
    assert any(set(p) & gripper_links for p in never)
    for end in ('lower', 'upper'):
        values = poser.random_values(np.random.default_rng(7), FRESH // 2)
        for column in poser.gripper_columns:
            values[:, column] = getattr(poser, end)[column]
        counts = {}
        for found in direct_collisions(shapes, poser.poses(shapes.links, values)):
            for pair in found:
                counts[pair] = counts.get(pair, 0) + 1
        worst = max((counts.get(p, 0) for p in never), default=0)
        assert worst <= NEVER_TOLERANCE * len(values), (end, {p: counts[p] for p in never
                                                              if counts.get(p)})


BOX = '<collision><geometry><box size="0.2 0.2 0.2"/></geometry></collision>'


def _robot(links, joints):
    body = ''.join(f'<link name="{n}">{g}</link>' for n, g in links)
    for name, kind, parent, child, xyz in joints:
        limit = '<limit lower="-1" upper="1" effort="1" velocity="1"/>' \
            if kind == 'revolute' else ''
        body += (f'<joint name="{name}" type="{kind}"><origin xyz="{xyz}"/>'
                 f'<parent link="{parent}"/><child link="{child}"/><axis xyz="0 0 1"/>'
                 f'{limit}</joint>')
    return f'<robot name="r">{body}</robot>'


def test_adjacency_goes_through_links_without_geometry():
    urdf = parse_urdf(_robot([('a', BOX), ('b', ''), ('c', ''), ('d', BOX), ('e', BOX)],
                             [('j1', 'continuous', 'a', 'b', '0 0 0'),
                              ('j2', 'fixed', 'b', 'c', '0 0 0'),
                              ('j3', 'continuous', 'c', 'd', '0 0 0'),
                              ('j4', 'continuous', 'd', 'e', '0 0 0')]))
    assert adjacent_pairs(urdf, ['a', 'd', 'e']) == [('a', 'd'), ('d', 'e')]


def test_reasons_are_reproducible_and_sampling_can_be_off():
    """The same seed gives the same package; samples=0 leaves only Adjacent pairs."""
    model = load(ROBOTS[0])
    package = moveit_package(model, 'arm', samples=500, seed=1, timestamp=0)
    reasons = set(package.disabled.values())
    assert {'Adjacent', 'Never'} <= reasons
    again = moveit_package(model, 'arm', samples=500, seed=1, timestamp=0)
    assert again.files == package.files                     # seeded: reproducible
    only_adjacent = moveit_package(model, 'arm', samples=0, timestamp=0)
    assert set(only_adjacent.disabled.values()) == {'Adjacent'}


def test_without_never_pairs_the_rest_is_the_same_and_home_can_be_zero():
    """``never=False``: the same Adjacent, Default and Always pairs, no Never pair (more
    pairs checked); ``home=False``: the home state is the zero state."""
    from hrdf_ros.description.robot import describe
    from hrdf_ros.description.semantics import semantics
    description = describe(load(ROBOTS[0]), 'arm')
    full = semantics(description, samples=500, seed=1)
    strict = semantics(description, samples=500, seed=1, never=False, home=False)
    assert 'Never' in full.disabled.values() and 'Never' not in strict.disabled.values()
    assert strict.disabled == {p: r for p, r in full.disabled.items() if r != 'Never'}
    assert strict.states['home'] == strict.states['zero'] == full.states['zero']
    assert full.states['home'] != full.states['zero']


def test_default_on_a_hand_made_urdf():
    """A big sphere on the last link overlaps links beyond its neighbour at the default
    state: those pairs are Default (checked before sampling), the rest is sampled."""
    model = load(BUNDLED_ARM)
    tree = build_frame_tree(model)
    text = to_urdf(model, 'r', tree=tree)
    root = ET.fromstring(text)
    shapes = {'big': '<collision><geometry><sphere radius="0.3"/></geometry></collision>'}
    # give the end link a big sphere: it touches everything near it, always
    for link in root.findall('link'):
        if link.get('name') == tree.links[-1]:
            link.append(ET.fromstring(shapes['big']))
    text = ET.tostring(root, encoding='unicode')
    urdf = parse_urdf(text)
    shapes = collision_shapes(urdf_collisions(text))
    matrix = collision_matrix(urdf, shapes, LinkPoser(model, tree, urdf), samples=300, seed=0)
    assert set(matrix.values()) <= {'Adjacent', 'Default', 'Always', 'Never'}
    assert 'Default' in matrix.values()
    default = {p for p, r in matrix.items() if r == 'Default'}
    assert default and all(tree.links[-1] in p for p in default)
    with pytest.raises(ValueError, match='samples'):
        collision_matrix(urdf, shapes, LinkPoser(model, tree, urdf), -1)


def _binary_stl(triangles):
    data = b'\0' * 80 + struct.pack('<I', len(triangles))
    for t in triangles:
        data += struct.pack('<12fH', 0, 0, 0, *np.ravel(t), 0)
    return data


CUBE = np.array([[[0, 0, 0], [1, 0, 0], [1, 1, 0]], [[0, 0, 0], [1, 1, 0], [0, 1, 0]],
                 [[0, 0, 1], [1, 1, 1], [1, 0, 1]], [[0, 0, 1], [0, 1, 1], [1, 1, 1]],
                 [[0, 0, 0], [1, 0, 1], [1, 0, 0]], [[0, 0, 0], [0, 0, 1], [1, 0, 1]],
                 [[0, 1, 0], [1, 1, 0], [1, 1, 1]], [[0, 1, 0], [1, 1, 1], [0, 1, 1]],
                 [[0, 0, 0], [0, 1, 0], [0, 1, 1]], [[0, 0, 0], [0, 1, 1], [0, 0, 1]],
                 [[1, 0, 0], [1, 1, 1], [1, 1, 0]], [[1, 0, 0], [1, 0, 1], [1, 1, 1]]],
                dtype=float) * 0.1


def test_meshes_from_stl_and_obj_files_and_opaque_urls(tmp_path):
    (tmp_path / 'cube.stl').write_bytes(_binary_stl(CUBE))
    ascii_stl = 'solid c\n' + ''.join(
        'facet normal 0 0 0\nouter loop\n' + ''.join(f'vertex {x} {y} {z}\n' for x, y, z in t)
        + 'endloop\nendfacet\n' for t in CUBE) + 'endsolid c\n'
    (tmp_path / 'ascii.stl').write_text(ascii_stl)
    vertices = sorted({tuple(v) for v in CUBE.reshape(-1, 3)})
    index = {v: k + 1 for k, v in enumerate(vertices)}
    (tmp_path / 'cube.obj').write_text(
        ''.join(f'v {x} {y} {z}\n' for x, y, z in vertices)
        + ''.join('f ' + ' '.join(f'{index[tuple(v)]}/1' for v in t) + '\n' for t in CUBE))
    links = [(name, f'<collision><geometry><mesh filename="{uri}" scale="2 2 2"/>'
              '</geometry></collision>') for name, uri in (
        ('a', f'file://{tmp_path}/cube.stl'), ('b', str(tmp_path / 'ascii.stl')),
        ('c', f'{tmp_path}/cube.obj'), ('d', 'package://hebi_description/meshes/X5.stl'),
        ('e', 'https://example.com/m.obj'), ('f', f'{tmp_path}/missing.stl'))]
    shapes = collision_shapes(urdf_collisions(
        _robot(links, []).replace('</robot>', '') + '</robot>'))
    assert [s.kind for s in shapes.shapes] == ['mesh'] * 3
    for shape in shapes.shapes:
        assert np.allclose(shape.obb_pose[:3, 3], 0.1) and np.allclose(shape.half_extents,
                                                                       0.1)
    assert sorted(shapes.opaque) == ['d', 'e', 'f']
    assert 'not a local file' in shapes.opaque['d'] and 'not found' in shapes.opaque['f']
