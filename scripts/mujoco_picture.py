#!/usr/bin/env python3
"""Picture of a HEBI kit in MuJoCo for the docs (doc/images/mujoco_scene.png), rendered by
MuJoCo's own offscreen renderer.

Usage (from the repository root, after ``make test`` installed MuJoCo):
    .venv/bin/python scripts/mujoco_picture.py              # the picture of the docs
    .venv/bin/python scripts/mujoco_picture.py ROBOT.hrdf -o out.png

Runs the real command, ``hrdf mjcf FILE --mesh-dir <hebi_description>/meshes -o
TMP/robot.xml``, loads the scene.xml it wrote beside it, resets to the ``home``
keyframe, closes the gripper for a second of simulated time, and renders 640 x 480
pixels with ``MUJOCO_GL=egl`` (Mesa's software EGL on a machine without a screen; set
``MUJOCO_GL`` to choose another backend). Exit code 0 when the picture was written.
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
KIT = os.path.join(REPO, '..', 'shared', 'hrdf', 'kits', 'A-2085-06G.hrdf')
MESHES = os.path.join(REPO, '..', 'shared', 'hebi_description', 'meshes')
#: Camera: point looked at (m), distance (m), azimuth and elevation (degrees).
LOOKAT, DISTANCE, AZIMUTH, ELEVATION = (0.3, 0.0, 0.25), 1.35, 135.0, -22.0


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('hrdf', nargs='?', default=KIT)
    parser.add_argument('-o', '--output',
                        default=os.path.join(REPO, 'doc', 'images', 'mujoco_scene.png'))
    args = parser.parse_args(argv)
    os.environ.setdefault('MUJOCO_GL', 'egl')
    import mujoco                      # after MUJOCO_GL: it picks the backend on import
    from PIL import Image
    with tempfile.TemporaryDirectory() as folder:
        robot = os.path.join(folder, 'robot.xml')
        subprocess.run([os.path.join(os.path.dirname(sys.executable), 'hrdf'), 'mjcf',
                        args.hrdf, '--mesh-dir', MESHES, '-o', robot], check=True,
                       stdout=subprocess.DEVNULL)
        model = mujoco.MjModel.from_xml_path(os.path.join(folder, 'scene.xml'))
    data = mujoco.MjData(model)
    mujoco.mj_resetDataKeyframe(model, data, model.key('home').id)
    for k in range(model.nu):          # close the gripper, if there is one
        if model.actuator(k).name.startswith('gripper'):
            data.ctrl[k] = model.actuator_ctrlrange[k][1]
    while data.time < 1.0:
        mujoco.mj_step(model, data)
    camera = mujoco.MjvCamera()
    camera.lookat[:], camera.distance = LOOKAT, DISTANCE
    camera.azimuth, camera.elevation = AZIMUTH, ELEVATION
    with mujoco.Renderer(model, 480, 640) as renderer:
        renderer.update_scene(data, camera=camera)
        pixels = renderer.render()
    os.makedirs(os.path.dirname(os.path.abspath(args.output)), exist_ok=True)
    Image.fromarray(pixels).quantize(colors=128).save(args.output, optimize=True)
    print(args.output)
    return 0


if __name__ == '__main__':
    sys.exit(main())
