"""scripts/render_robot.py draws box/cylinder/sphere visuals, skips meshes, and falls
back to a ball-and-segment skeleton for a URDF without visuals (docs dependency:
matplotlib, from requirements-dev.txt)."""
import importlib.util
import os

import pytest

from conftest import BUNDLED_ARM, REPO


PNG_SIGNATURE = b'\x89PNG\r\n\x1a\n'


@pytest.fixture(scope='module')
def renderer():
    spec = importlib.util.spec_from_file_location(
        'render_robot', os.path.join(REPO, 'scripts', 'render_robot.py'))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


URDF = ('<robot name="shapes"><link name="base_link"><visual><geometry><box size="0.2 0.1 0.05"/>'
        '</geometry><material name="red"><color rgba="1 0 0 1"/></material></visual></link>'
        '<link name="arm"><visual><origin xyz="0 0 0.1" rpy="0 0 0"/><geometry>'
        '<cylinder radius="0.02" length="0.2"/></geometry></visual>'
        '<visual><geometry><mesh filename="package://x/m.stl"/></geometry></visual></link>'
        '<link name="tool"><visual><geometry><sphere radius="0.03"/></geometry></visual></link>'
        '<joint name="j1" type="continuous"><parent link="base_link"/><child link="arm"/>'
        '<axis xyz="0 1 0"/></joint>'
        '<joint name="j2" type="fixed"><origin xyz="0 0 0.2"/><parent link="base_link"/>'
        '<child link="tool"/></joint></robot>')


def test_primitives_are_drawn_and_meshes_skipped(renderer, tmp_path, capsys):
    out = tmp_path / 'shapes.png'
    counts = renderer.render(URDF, str(out), {'j1': 0.5}, 'shapes')
    assert counts == {'box': 1, 'cylinder': 1, 'sphere': 1, 'mesh': 1, 'skeleton_links': 0,
                      'skeleton_joints': 0}
    assert out.read_bytes().startswith(PNG_SIGNATURE)
    assert 'mesh visual(s) not drawn' in capsys.readouterr().err


def test_hrdf_input_renders(renderer, tmp_path):
    out = tmp_path / 'sub' / 'arm.png'
    assert renderer.main([BUNDLED_ARM, '--positions', '0.3 0.9 1.6 -0.4 0.8 0',
                          '-o', str(out)]) == 0
    assert out.read_bytes().startswith(PNG_SIGNATURE)


def test_bad_inputs_exit_1(renderer, tmp_path):
    assert renderer.main([BUNDLED_ARM, '--positions', '1 2', '-o', str(tmp_path / 'a.png')]) == 1
    assert renderer.main([str(tmp_path / 'missing.urdf'), '-o', str(tmp_path / 'b.png')]) == 1
    bad = tmp_path / 'bad.hrdf'
    bad.write_text('<robot version="1.2.0"><actuator type="X5-99"/></robot>')
    assert renderer.main([str(bad), '-o', str(tmp_path / 'c.png')]) == 1
    assert sorted(os.listdir(tmp_path)) == ['bad.hrdf']


def test_urdf_without_visuals_is_drawn_as_a_skeleton(renderer, tmp_path):
    import xml.etree.ElementTree as ET

    from hrdf_ros import load, to_urdf

    root = ET.fromstring(to_urdf(load(BUNDLED_ARM), 'arm'))
    for link in root.findall('link'):
        for visual in link.findall('visual'):
            link.remove(visual)
    counts = renderer.render(ET.tostring(root, encoding='unicode'), str(tmp_path / 's.png'))
    assert counts['skeleton_links'] == len(root.findall('link'))
    moving = [j for j in root.findall('joint')      # segments of non-zero length
              if any(float(v) for v in j.find('origin').get('xyz').split())]
    assert counts['skeleton_joints'] == len(moving) == len(root.findall('joint')) - 1
    assert counts['box'] == counts['cylinder'] == counts['sphere'] == 0
