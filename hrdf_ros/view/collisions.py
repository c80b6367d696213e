"""Collisions in ``hrdf view``: the links of the shown configuration that are in collision
drawn in the collision colour, the collision objects drawn, and the planner that
collision-free IK uses.

In: the viser server; on each (re)load, the model, its frame tree, the URDF joint limits
and the :class:`~.robot_scene.RobotScene`; the collision objects (the schema of
:mod:`hrdf_ros.motion.objects`, from ``--collision-objects`` and ``--floor``). Out: a
"Collisions" line in the page (the colliding pairs, or free), the colliding links'
visuals in :data:`IN_COLLISION` and back in their colours once free, the objects as
translucent shapes, and :attr:`CollisionView.planner` (a :class:`hrdf_ros.MotionPlanner`
of the drawn robot, names and limits as drawn) once it is built.

The planner (the ``motion`` extra) is built and warmed up (``hrdf_ros.motion.warm_up``)
in a thread of its own at each (re)load, so the page comes up at once and the first
drag's IK has its whole time; until it is ready the line says so, and the checks start
with the next pose shown. Without the extra the line says what to install. Checks are those of
:meth:`hrdf_ros.MotionPlanner.colliding_pairs` (the robot's collision shapes, the SRDF's
allowed pairs, the objects), at the degrees of freedom the sliders show (a gripper's
finger at its closed position, as the planner counts it).
"""
from __future__ import annotations

import threading
from typing import Dict, Optional, Sequence

import numpy as np
import trimesh

from ..description.robot import describe
from ..kinematics.rotations import rotation_to_quaternion
from .fk_panel import hebi_positions

#: Colour (0..255) of a link in collision: magenta, the one colour no HEBI part has (the
#: X-series actuators are drawn red already, 0.82 0.06 0.06).
IN_COLLISION = (255, 0, 255)
#: Colour (0..255) and opacity of the collision objects.
OBJECT_COLOUR, OBJECT_OPACITY = (90, 140, 220), 0.45
#: Side of the square drawn for a floor, m.
FLOOR_SIDE = 3.0
#: Scene node of the objects.
ROOT = '/collision_objects'


class CollisionView:
    """The collision line, the colliding links' colour and the objects (module docstring).

    Args:
        server: the viser server.
        objects: the collision objects (checked: :func:`hrdf_ros.motion.collision_objects`).
        order: place of the line in the page (viser's ``order``).
    """

    def __init__(self, server, objects: Sequence = (), order: Optional[float] = None):
        from ..motion.objects import collision_objects  # noqa: PLC0415 - no extra needed
        self._server = server
        self.objects = collision_objects(list(objects))
        self._lock = threading.Lock()
        self._generation = 0
        self.planner = None
        self._scene = self._model = self._tree = None
        self._values: Dict[str, float] = {}
        self.pairs: list = []
        self._text = server.gui.add_markdown('**Collisions**: checking soon', order=order)
        self._nodes = [_draw(server.scene, k, o) for k, o in enumerate(self.objects)]

    def set_robot(self, model, tree, limits, scene) -> None:
        """Check a (re)loaded robot: its planner is built in a thread (the robot
        before goes, with its colours)."""
        with self._lock:
            self._generation += 1
            generation = self._generation
            self.planner, self.pairs = None, []
            self._scene, self._model, self._tree = scene, model, tree
        self._text.content = '**Collisions**: preparing the checks'
        threading.Thread(target=self._build, args=(generation, model, tree, limits),
                         name='hrdf_view_collisions', daemon=True).start()

    def _build(self, generation: int, model, tree, limits) -> None:
        try:
            from ..motion import MotionPlanner  # noqa: PLC0415 - the motion extra
            from ..motion.warm_up import warm_up  # noqa: PLC0415
            description = describe(model, 'robot', tree=tree, position_limits=limits)
            planner = MotionPlanner(model, self.objects, description=description)
            warm_up(planner)         # here, not in the first drag's collision-free IK
        except (ImportError, ValueError) as exc:     # the extra missing; bad limits
            self._text.content = f'**Collisions**: not checked ({exc})'
            return
        with self._lock:
            if generation != self._generation:
                return                                  # a robot since replaced
            self.planner = planner
        self.update(self._values)

    def update(self, values: Dict[str, float]) -> None:
        """Check the configuration of URDF joint values ``values`` (by name) and draw it:
        the colliding links in :data:`IN_COLLISION`, the line naming the pairs."""
        self._values = dict(values)
        with self._lock:
            planner, scene = self.planner, self._scene
            model, tree = self._model, self._tree
        if planner is None or scene is None:
            return
        pairs = planner.colliding_pairs(hebi_positions(model, tree, values))
        links = {name for pair in pairs for name in pair} & set(scene.links)
        scene.highlight(links, IN_COLLISION)
        self.pairs = pairs
        self._text.content = ('**Collisions**: ' + ', '.join(f'`{a}` - `{b}`' for a, b in pairs)
                              if pairs else '**Collisions**: none')

    def text(self) -> str:
        """The line as shown (markdown)."""
        return self._text.content


def _draw(scene, index: int, entry):
    """One collision object as a translucent shape in the root link frame."""
    kind, size = entry.type, entry.dimensions
    pose = entry.pose()
    if kind == 'box':
        mesh = trimesh.creation.box(extents=size)
    elif kind == 'sphere':
        mesh = trimesh.creation.icosphere(subdivisions=3, radius=size[0])
    elif kind == 'cylinder':
        mesh = trimesh.creation.cylinder(radius=size[1], height=size[0], sections=32)
    else:                               # a floor: a level square just under its plane
        mesh = trimesh.creation.box(extents=(FLOOR_SIDE, FLOOR_SIDE, 0.002))
        pose = np.eye(4)
        pose[2, 3] = entry.position[2] - 0.001
    x, y, z, w = rotation_to_quaternion(pose[:3, :3])
    return scene.add_mesh_simple(f'{ROOT}/{index}', np.asarray(mesh.vertices),
                                 np.asarray(mesh.faces), color=OBJECT_COLOUR,
                                 opacity=OBJECT_OPACITY, wxyz=(w, x, y, z),
                                 position=pose[:3, 3], cast_shadow=False,
                                 receive_shadow=False)
