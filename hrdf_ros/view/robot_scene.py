"""A URDF drawn in a viser scene, link by link, posed from joint values or from TF.

In: URDF text (what ``hrdf_ros.to_urdf`` writes, or any ``robot_description``). Out: one
scene frame per URDF link under a root node, carrying that link's ``<visual>`` shapes,
and :meth:`RobotScene.set_link_poses` to move them; :meth:`RobotScene.link_poses`
computes the poses from joint values with the URDF's own joints (yourdfpy), mimic
joints following theirs (value = multiplier x joint + offset).

* Parsing and URDF kinematics: yourdfpy (``update_cfg`` / ``get_transform``).
* Shapes: ``box``, ``cylinder`` (axis z), ``sphere`` as trimesh primitives; ``mesh`` files
  through :func:`.mesh_files.resolve_mesh` (``file://``, ``package://`` via the ament
  index) and trimesh, scaled by the ``<mesh scale>``. A visual whose mesh has no local
  file is replaced by the link's ``<collision>`` shapes (the export writes primitives
  there for web meshes) and reported in :attr:`RobotScene.notes`.
* Display detail: a mesh of more than :data:`MAX_DISPLAY_FACES` triangles is simplified
  by vertex clustering (:func:`display_mesh`; HEBI's actuator meshes have about 48,000
  each, which software WebGL, as on a robot computer without GPU, draws in seconds).
  A mesh file read and simplified once is kept (:data:`MESH_CACHE` files, by path,
  content digest and scale), so that a reload after an edit of the HRDF does not parse
  HEBI's meshes again (1.2 of 1.3 s for A-2085-06); a changed file is read again.
* Colours: the visual's ``<material>`` colour (inline, or by name from the robot's
  materials), else ``default_colour`` (RGB 0..1).

Links are flat children of the root node (``<root>/link<k>``, k = URDF order), so a pose
is the link's pose in the URDF root link, whatever characters the link names contain.
"""
from __future__ import annotations

import functools
import hashlib
import io
import math
from dataclasses import dataclass
from typing import Callable, Dict, List, Optional, Sequence, Tuple

import numpy as np
import trimesh
import yourdfpy

from ..kinematics.rotations import rotation_to_quaternion
from .mesh_files import MeshNotFound, resolve_mesh

#: Meshes with more triangles are simplified for display (see :func:`display_mesh`).
MAX_DISPLAY_FACES = 20000
#: Mesh files kept read and simplified (least recently used dropped).
MESH_CACHE = 64
#: Colour (RGB, 0..1) of visuals without a material.
DEFAULT_COLOUR = (0.6, 0.6, 0.6)
#: Slider range of a revolute/continuous joint without limits, rad; of a prismatic one, m.
UNLIMITED_REVOLUTE = (-math.pi, math.pi)
UNLIMITED_PRISMATIC = (-1.0, 1.0)


class UrdfError(Exception):
    """URDF text that cannot be drawn (the message says why)."""


@dataclass(frozen=True)
class MovableJoint:
    """A joint that gets a slider: URDF name, type, and position range (rad or m)."""

    name: str
    kind: str
    lower: float
    upper: float


def parse_urdf(urdf_text: str) -> 'yourdfpy.URDF':
    """yourdfpy model of URDF text, with its kinematic scene graph and no meshes.

    Raises:
        UrdfError: the text is not a URDF yourdfpy can read.
    """
    try:
        return yourdfpy.URDF.load(io.BytesIO(urdf_text.encode('utf-8')),
                                  build_scene_graph=True, load_meshes=False,
                                  build_collision_scene_graph=False,
                                  load_collision_meshes=False)
    except Exception as exc:  # noqa: BLE001 - yourdfpy raises many kinds
        raise UrdfError(f'robot_description is not a readable URDF ({type(exc).__name__}: '
                        f'{exc})') from None


def movable_joints(urdf) -> List[MovableJoint]:
    """The URDF's non-fixed, non-mimic joints in document order, with slider ranges:
    the ``<limit lower upper>`` where written (revolute, prismatic), else
    :data:`UNLIMITED_REVOLUTE` or :data:`UNLIMITED_PRISMATIC`."""
    out = []
    for joint in urdf.robot.joints:
        if joint.type in ('fixed', 'floating', 'planar') or joint.mimic is not None:
            continue
        default = UNLIMITED_PRISMATIC if joint.type == 'prismatic' else UNLIMITED_REVOLUTE
        limit = joint.limit
        lower = limit.lower if limit is not None and limit.lower is not None else None
        upper = limit.upper if limit is not None and limit.upper is not None else None
        if joint.type == 'continuous' or lower is None or upper is None or lower > upper:
            lower, upper = default
        out.append(MovableJoint(joint.name, joint.type, float(lower), float(upper)))
    return out


def _rgb(visual, materials: Dict[str, object], default) -> Tuple[float, float, float]:
    material = visual.material
    for candidate in (material, materials.get(getattr(material, 'name', None) or '')):
        color = getattr(candidate, 'color', None)
        if color is not None and color.rgba is not None:
            return tuple(float(c) for c in np.asarray(color.rgba)[:3])
    return default


def shape_mesh(geometry, base_directory: Optional[str] = None,
               access=None) -> 'trimesh.Trimesh':
    """The trimesh of one URDF ``<geometry>``, in its own frame (m); mesh files only
    where ``access`` allows (:func:`.mesh_files.resolve_mesh`).

    Raises:
        MeshNotFound: a mesh reference without a local file.
        UrdfError: an empty geometry, or a mesh file trimesh cannot read.
    """
    if geometry.box is not None:
        return trimesh.creation.box(extents=np.asarray(geometry.box.size, dtype=float))
    if geometry.cylinder is not None:
        return trimesh.creation.cylinder(radius=geometry.cylinder.radius,
                                         height=geometry.cylinder.length, sections=32)
    if geometry.sphere is not None:
        return trimesh.creation.icosphere(subdivisions=2, radius=geometry.sphere.radius)
    if geometry.mesh is None:
        raise UrdfError('a <geometry> without a shape')
    path = resolve_mesh(geometry.mesh.filename, base_directory, access)
    scale = geometry.mesh.scale
    scale = None if scale is None else \
        tuple(float(v) for v in np.broadcast_to(np.asarray(scale, dtype=float), (3,)))
    try:
        with open(path, 'rb') as handle:
            digest = hashlib.blake2b(handle.read(), digest_size=16).hexdigest()
    except OSError as exc:
        raise UrdfError(f'{geometry.mesh.filename}: {exc.strerror or exc}') from None
    return _mesh_file(geometry.mesh.filename, path, digest, scale).copy()


@functools.lru_cache(maxsize=MESH_CACHE)
def _mesh_file(reference: str, path: str, digest: str,
               scale: Optional[Tuple[float, float, float]]) -> 'trimesh.Trimesh':
    """A mesh file read, scaled and simplified (:func:`shape_mesh`); kept by its
    arguments, so a file whose content changed (``digest``) is read again. Never
    modified: callers get copies."""
    try:
        mesh = trimesh.load(path, force='mesh')
    except Exception as exc:  # noqa: BLE001 - trimesh raises many kinds
        raise UrdfError(f'{reference}: not a mesh trimesh can read '
                        f'({type(exc).__name__}: {exc})') from None
    if not isinstance(mesh, trimesh.Trimesh) or not len(mesh.faces):
        raise UrdfError(f'{reference}: no triangles')
    if scale is not None:
        mesh.apply_scale(np.asarray(scale))
    return display_mesh(mesh)


def display_mesh(mesh: 'trimesh.Trimesh', max_faces: int = MAX_DISPLAY_FACES
                 ) -> 'trimesh.Trimesh':
    """``mesh`` with at most ``max_faces`` triangles, for display only: vertices snapped
    to a grid (cells 1/100 of the largest extent, coarser until few enough triangles
    remain) and merged, degenerate and repeated triangles dropped. Shape and size are
    kept to about one cell (about 1 mm on an X-series actuator)."""
    if len(mesh.faces) <= max_faces:
        return mesh
    cell = float(np.max(mesh.extents)) / 100.0
    for _ in range(12):
        out = trimesh.Trimesh(np.round(mesh.vertices / cell) * cell, mesh.faces,
                              process=False)
        out.merge_vertices()
        out.update_faces(out.nondegenerate_faces())
        out.update_faces(out.unique_faces())
        out.remove_unreferenced_vertices()
        if len(out.faces) <= max_faces:
            break
        cell *= 1.5
    return out


def _wxyz(rotation: np.ndarray) -> np.ndarray:
    """Unit quaternion (w, x, y, z) of a rotation matrix (viser's order)."""
    x, y, z, w = rotation_to_quaternion(rotation)
    return np.array([w, x, y, z])


class RobotScene:
    """A URDF's links and visuals in a viser scene (see the module docstring).

    Args:
        scene: ``server.scene`` of a viser server.
        urdf_text: the URDF.
        root: scene node the robot hangs from.
        base_directory: folder of relative mesh paths.
        colour_of: link name -> RGB (0..1) for visuals without a material (default: a
            neutral grey).
        access: where mesh files may be read from
            (:class:`~hrdf_ros.hrdf.access.FileAccess`; ``None``: anywhere).

    Raises:
        UrdfError: the URDF cannot be read.
    """

    def __init__(self, scene, urdf_text: str, root: str = '/robot',
                 base_directory: Optional[str] = None,
                 colour_of: Optional[Callable[[str], Sequence[float]]] = None,
                 access=None):
        self.urdf = parse_urdf(urdf_text)
        self._access = access
        self.root_link = self.urdf.base_link
        self.links: List[str] = [link.name for link in self.urdf.robot.links]
        self.joints = movable_joints(self.urdf)
        self.notes: List[str] = []
        self._scene = scene
        self._root = root
        self._frames = {}
        self._handles = [scene.add_frame(root, show_axes=False)]
        materials = {m.name: m for m in self.urdf.robot.materials if m.name}
        self._corners: Dict[str, np.ndarray] = {}
        #: link -> [(visual handle, its own colour 0..255)]
        self._visual_colours: Dict[str, list] = {}
        self._highlighted: set = set()
        for k, link in enumerate(self.urdf.robot.links):
            frame = scene.add_frame(f'{root}/link{k}', show_axes=False)
            self._frames[link.name] = frame
            self._handles.append(frame)
            default = tuple(colour_of(link.name)) if colour_of else DEFAULT_COLOUR
            corners = [np.zeros((1, 3))]
            self._visual_colours[link.name] = []
            for n, (mesh, pose, rgb) in enumerate(self._visuals(link, materials, default,
                                                                base_directory)):
                colour = tuple(int(round(255 * c)) for c in rgb)
                handle = scene.add_mesh_simple(
                    f'{root}/link{k}/visual{n}', mesh.vertices, mesh.faces, color=colour,
                    wxyz=_wxyz(pose[:3, :3]), position=pose[:3, 3],
                    cast_shadow=False, receive_shadow=False)
                self._handles.append(handle)
                self._visual_colours[link.name].append((handle, colour))
                box = trimesh.bounds.corners(mesh.bounds)
                corners.append(trimesh.transform_points(box, pose))
            self._corners[link.name] = np.concatenate(corners)
        self.poses: Dict[str, np.ndarray] = {}

    def _visuals(self, link, materials, default, base_directory):
        """(trimesh, pose in the link frame, RGB) of each drawn shape of ``link``."""
        out = []
        for visual in link.visuals:
            pose = np.eye(4) if visual.origin is None else np.asarray(visual.origin, float)
            rgb = _rgb(visual, materials, default)
            try:
                out.append((shape_mesh(visual.geometry, base_directory, self._access),
                            pose, rgb))
            except (MeshNotFound, UrdfError) as exc:
                stand_ins = []
                for collision in link.collisions:
                    try:
                        mesh = shape_mesh(collision.geometry, base_directory,
                                          self._access)
                    except (MeshNotFound, UrdfError):
                        continue
                    origin = (np.eye(4) if collision.origin is None
                              else np.asarray(collision.origin, float))
                    stand_ins.append((mesh, origin, rgb))
                out.extend(stand_ins)
                instead = 'its collision shapes instead' if stand_ins else 'not drawn'
                self.notes.append(f'link {link.name}: {exc}; {instead}')
        return out

    def link_poses(self, values: Dict[str, float]) -> Dict[str, np.ndarray]:
        """Every link's (4, 4) pose in the root link for URDF joint values (rad, m; by
        joint name, missing joints 0; mimic joints follow theirs)."""
        self.urdf.update_cfg({j.name: float(values.get(j.name, 0.0)) for j in self.joints})
        return {name: np.asarray(self.urdf.get_transform(name, self.root_link))
                for name in self.links}

    def set_link_poses(self, poses: Dict[str, np.ndarray]) -> None:
        """Move the links named in ``poses`` ((4, 4) in the root link); others stay."""
        names = [name for name in poses if name in self._frames]
        if not names:
            return
        matrices = np.array([poses[name] for name in names], dtype=float)
        quaternions = rotation_to_quaternion(matrices[:, :3, :3])     # one call: x y z w
        for name, pose, (x, y, z, w) in zip(names, matrices, quaternions):
            frame = self._frames[name]
            frame.wxyz = np.array([w, x, y, z])
            frame.position = pose[:3, 3]
            self.poses[name] = pose

    def highlight(self, links, colour: Tuple[int, int, int]) -> None:
        """Draw the visuals of ``links`` (names) in ``colour`` (RGB 0..255) and every
        other link's in its own colours (only what changes is sent)."""
        links = set(links) & set(self._visual_colours)
        for name in links ^ self._highlighted:
            for handle, own in self._visual_colours[name]:
                handle.color = colour if name in links else own
        self._highlighted = links

    def bounds(self) -> Optional[np.ndarray]:
        """(2, 3) axis-aligned box (m, root link frame) around every posed link's origin
        and the bounding boxes of its shapes, or ``None`` before any pose was set."""
        points = [trimesh.transform_points(self._corners[name], pose)
                  for name, pose in self.poses.items()]
        if not points:
            return None
        points = np.concatenate(points)
        return np.array([points.min(axis=0), points.max(axis=0)])

    @property
    def visible(self) -> bool:
        """Whether the robot is drawn."""
        return bool(self._handles and self._handles[0].visible)

    @visible.setter
    def visible(self, value: bool) -> None:
        if self._handles:
            self._handles[0].visible = bool(value)

    def remove(self) -> None:
        """Take the robot out of the scene."""
        for handle in reversed(self._handles):
            handle.remove()
        self._handles = []
