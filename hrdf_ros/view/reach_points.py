"""A reach map in ``hrdf view``: its points drawn as a point cloud, coloured by the
reachability index, the payload or the manipulability, with a legend; a click poses the
arm at the chosen point's best configuration.

In: the viser server, a :class:`~hrdf_ros.reach.result.ReachMap` (``hrdf view --reach
MAP.npz``) or none, the view's collision objects, and on each (re)load the model, its
frame tree and the sliders' ``set_values``. Out: the scene node ``/reach`` (one point per
reachable centre, in the reference frame, m), a "Reach map" folder (show, colour by, the
legend: the colour scale's ends and units, and whether the map checked collisions; the
chosen point: its centre, index, payload, manipulability, binding joint; a button that
computes the shown robot's map, 50 directions at the voxel chosen, free of collision with
the view's collision objects or not (a switch), in a thread, its progress in the panel),
and on a click in the scene the reachable centre nearest the click's ray (within half a
voxel of it; the nearest to the camera among those) chosen and the sliders moved to its
``positions``. A map of another number of joints than the robot's is drawn, says so, and
moves nothing.
"""
from __future__ import annotations

import os
import threading
from typing import Callable, Dict, Optional, Sequence

import numpy as np

from .fk_panel import urdf_values

#: viridis (matplotlib's default colour map, van der Walt and Smith 2015) at 0, 1/4, 1/2,
#: 3/4 and 1, as 0..255 RGB; the scale between them is linear.
VIRIDIS = np.array([[68, 1, 84], [59, 82, 139], [33, 145, 140], [94, 201, 98],
                    [253, 231, 37]], dtype=float)
#: (ReachMap field, label in the page, unit)
COLOUR_BY = {'reachability index': ('reachability', 'share of the tool directions solved'),
             'payload': ('payload', 'kg'),
             'manipulability': ('manipulability', 'sqrt(det(J J^T)), m^3')}
#: Point size as a share of the voxel: the robot stays visible between the points.
POINT_SHARE = 0.3
#: The voxels the button offers (m); the first is ``hrdf reach``'s default.
VOXELS = ('0.05', '0.1', '0.15', '0.2')
#: Tool directions of a map the button computes (``hrdf reach``'s default).
DIRECTIONS = 50
#: A click chooses a point within this many voxels of its ray (half the spacing: the
#: point under the cursor, or the front one of those behind it).
PICK_VOXELS = 0.5


def colours(values: np.ndarray, top: float) -> np.ndarray:
    """(N, 3) uint8: ``values`` (N,) on :data:`VIRIDIS` from 0 to ``top`` (clipped)."""
    t = np.clip(np.nan_to_num(values / max(top, 1e-12), nan=0.0, posinf=1.0), 0.0, 1.0)
    scaled = t * (len(VIRIDIS) - 1)
    low = np.minimum(scaled.astype(int), len(VIRIDIS) - 2)
    share = (scaled - low)[:, None]
    return np.rint(VIRIDIS[low] * (1 - share) + VIRIDIS[low + 1] * share).astype(np.uint8)


def nearest_to_ray(points: np.ndarray, origin, direction, within: float) -> int:
    """The row of ``points`` (N, 3) nearest the camera among those within ``within`` of
    the ray (in front of it), or -1."""
    d = np.asarray(direction, dtype=float)
    d = d / np.linalg.norm(d)
    relative = points - np.asarray(origin, dtype=float)
    along = relative @ d
    off = np.linalg.norm(relative - along[:, None] * d, axis=1)
    close = np.nonzero((off <= within) & (along > 0))[0]
    if not len(close):
        return -1
    return int(close[np.argmin(along[close])])


class ReachPoints:
    """The map's point cloud, its folder and the click that poses the arm (see the
    module docstring).

    Args:
        server: the viser server.
        reach: the map, or None (the button computes one).
        order: place of the folder in the page (viser's ``order``).
        objects: the view's collision objects, which a map computed free of collision
            avoids (:class:`~hrdf_ros.motion.objects.CollisionObject` values).
    """

    def __init__(self, server, reach=None, order: Optional[float] = None,
                 objects: Sequence = ()):
        self._server, self.reach, self._objects = server, None, list(objects)
        self._lock = threading.Lock()
        self._rows = np.zeros(0, dtype=int)
        self._points = np.zeros((0, 3), dtype=np.float32)
        self._set_values: Optional[Callable[[Dict[str, float]], None]] = None
        self._model = None
        self._names = ()
        self._tree = None
        self._computing = False
        gui = server.gui
        # closed until there is a map: the page stays as it was for who does not ask
        with gui.add_folder('Reach map', order=order,
                            expand_by_default=reach is not None):
            self._show = gui.add_checkbox('show points', initial_value=True)
            self._by = gui.add_dropdown('colour by', tuple(COLOUR_BY),
                                        initial_value='reachability index')
            self._legend = gui.add_markdown('')
            self._readout = gui.add_markdown('No map: compute one, or start with '
                                             '`--reach MAP.npz` (`hrdf reach -o`).')
            self._voxel = gui.add_dropdown('voxel (m)', VOXELS, initial_value=VOXELS[0])
            self._free = gui.add_checkbox(
                'free of collision', initial_value=False,
                hint='count only configurations free of collision: the links with each '
                     'other and with the collision objects (hrdf reach --avoid-collisions)')
            self._compute = gui.add_button(
                'compute the map', hint=f'{DIRECTIONS} tool directions per point; a 5 cm '
                'map of a 6-DoF arm takes about 20 s')
        self._cloud = None
        self._show.on_update(lambda _: self._visibility())
        self._by.on_update(lambda _: self._draw())
        self._compute.on_click(lambda _: self._start_computing())
        server.scene.on_click()(self._clicked)
        if reach is not None:
            self._set_map(reach)

    def set_robot(self, model, tree, set_values: Callable[[Dict[str, float]], None]) -> None:
        """The robot the map poses: its joint names (URDF) and the sliders' setter."""
        with self._lock:
            self._model = model
            self._names = tuple(tree.dof_names)
            self._tree = tree
            self._set_values = set_values
            if self.reach is not None and model.dof_count != len(self.reach.joint_names):
                self._readout.content = (
                    f'**The map has {len(self.reach.joint_names)} joints, the robot '
                    f'{model.dof_count}**: choosing a point moves nothing.')

    def _set_map(self, reach) -> None:
        with self._lock:
            self.reach = reach
            self._rows = np.nonzero(reach.reachable)[0]
            self._points = np.asarray(reach.centers[self._rows], dtype=np.float32)
        self._readout.content = 'Click a point to pose the arm there.'
        self._draw()

    def _start_computing(self) -> None:
        with self._lock:
            if self._computing or self._model is None:
                return
            self._computing = True
            model = self._model
        self._compute.disabled = True
        threading.Thread(target=self._computed,
                         args=(model, float(self._voxel.value), bool(self._free.value)),
                         name='hrdf_view_reach', daemon=True).start()

    def _computed(self, model, voxel: float, free: bool) -> None:
        """The thread that computes a map (module docstring); never raises."""
        from ..reach import reach_map  # noqa: PLC0415 - only when asked

        def progress(done: int, total: int) -> None:
            self._readout.content = f'Computing the map: {done / max(total, 1):.0%}'
        try:
            reach = reach_map(model, voxel=voxel, directions=DIRECTIONS,
                              threads=max(1, min(4, os.cpu_count() or 1)),
                              avoid_collisions=free,
                              collision_objects=self._objects if free else (),
                              progress=progress)
        except (ValueError, IndexError, ImportError) as exc:
            self._readout.content = f'**No map**: {exc}'
        else:
            self._set_map(reach)
        finally:
            with self._lock:
                self._computing = False
            self._compute.disabled = False

    def _draw(self) -> None:
        reach = self.reach
        if reach is None:
            return
        field, unit = COLOUR_BY[self._by.value]
        values = np.asarray(getattr(reach, field), dtype=float)[self._rows]
        top = reach.scale_top(field)
        self._cloud = self._server.scene.add_point_cloud(
            '/reach', points=self._points, colors=colours(values, top),
            point_size=POINT_SHARE * reach.voxel, point_shape='circle',
            visible=self._show.value)
        clipped = ' (the top 1 % drawn as the top)' if field != 'reachability' else ''
        self._legend.content = (
            f'**{self._by.value}**, {unit}: dark purple **0** → teal → yellow '
            f'**{top:.3g}**{clipped}; {len(self._rows)} points {reach.voxel:g} m '
            'apart, ' + ('free of collision' if reach.avoid_collisions
                         else 'collisions ignored'))

    def _visibility(self) -> None:
        if self._cloud is not None:
            self._cloud.visible = self._show.value

    def _clicked(self, event) -> None:
        if self.reach is None or not self._show.value or event.ray_origin is None:
            return
        k = nearest_to_ray(self._points, event.ray_origin, event.ray_direction,
                           PICK_VOXELS * self.reach.voxel)
        if k >= 0:
            self.choose(int(self._rows[k]))

    def choose(self, row: int) -> None:
        """Pose the arm at centre ``row``'s best configuration and describe it."""
        with self._lock:
            reach = self.reach
            binding = reach.binding_joint[row]
            centre = ', '.join(f'{v:.3f}' for v in reach.centers[row])
            self._readout.content = (
                f'**Point** ({centre}) m: index {reach.reachability[row]:.2f}, payload '
                f'{reach.payload[row]:.3f} kg, manipulability '
                f'{reach.manipulability[row]:.4g}; binding joint '
                f'{reach.joint_names[binding] if binding >= 0 else "none"}')
            fits = len(self._names) == len(reach.joint_names)
            set_values = self._set_values if fits else None
            values = urdf_values(self._model, self._tree, reach.positions[row]) if fits \
                else {}
        if set_values is not None:
            set_values(values)
