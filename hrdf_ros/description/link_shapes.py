"""The visual and collision shapes of each link, with their colours and mesh files.

In: a model, its frame tree, the export's mesh source and the references to write for
the HRDF's own meshes (:func:`hrdf_ros.parts.meshes.export_meshes`). Out: ``{link:
LinkShapes}`` for every link that carries a part (an element's link, a gripper part's
link); links without one (end effectors, free outputs) have no entry.

An element's shapes come from HEBI's part catalogue (:func:`shapes_of`, over
:func:`hrdf_ros.parts.geometry.element_geometry`), a gripper part's from
:func:`hrdf_ros.parts.gripper_geometry.gripper_part_shapes`. Writers read colours and
local mesh files through :func:`colour` and :func:`mesh_file`, never from
:mod:`hrdf_ros.parts` directly. Units: m; poses (4, 4) in the link frame.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Dict, List, Mapping, Optional, Tuple

from ..hrdf.catalogue import ACTUATORS
from ..model import Element, RobotModel
from ..parts.geometry import Shape, element_geometry
from ..parts.gripper_geometry import gripper_part_shapes
from ..parts.hebi_parts import COLOURS
from ..parts.mesh_sources import MeshSource, local_mesh_path
from .frame_tree import FrameTree
from .gripper import BASE


@dataclass(frozen=True)
class LinkShapes:
    """What one link looks like and collides with.

    Attributes:
        visual: shapes drawn, each with a material (:func:`colour`).
        collision: collision shapes (no material).
        note: why a mesh was replaced by primitives, or ``''``.
    """

    visual: List[Shape]
    collision: List[Shape]
    note: str = ''


def shapes_of(element: Element, source: MeshSource, mesh: Optional[str]
              ) -> Tuple[List[Shape], List[Shape], str]:
    """(visual, collision, note) of an element (:func:`~hrdf_ros.parts.geometry.
    element_geometry`, with an actuator's series and output height from the catalogue)."""
    spec = ACTUATORS.get(element.type) if element.kind == 'actuator' else None
    return element_geometry(element, source, mesh, spec.series if spec else None,
                            spec.output_height if spec else None)


def link_shapes(model: RobotModel, tree: FrameTree, source: MeshSource,
                references: Mapping[str, Optional[str]]) -> Dict[str, LinkShapes]:
    """The shapes of every link that carries a part, in link order (the frame tree's
    links, then the grippers' part links).

    Args:
        model, tree: the robot and its links.
        source: where HEBI's part meshes come from.
        references: ``{HRDF mesh: reference to write or None}``
            (:func:`hrdf_ros.parts.meshes.mesh_references`).
    """
    element_of_link = {name: i for i, name in enumerate(tree.element_links)}
    part_of_link = {g.link_of(part): part for g in tree.grippers
                    for part in [BASE] + list(g.links)}
    shapes: Dict[str, LinkShapes] = {}
    for name in tree.links + [n for g in tree.grippers for n in g.links.values()]:
        if name in part_of_link:
            shapes[name] = LinkShapes(*gripper_part_shapes(part_of_link[name], source))
        elif name in element_of_link:
            element = model.elements[element_of_link[name]]
            shapes[name] = LinkShapes(*shapes_of(element, source,
                                                 references.get(element.mesh_file or '')))
    return shapes


def colour(material: str) -> Tuple[float, float, float, float]:
    """RGBA (0..1) of a visual shape's material (HEBI's part colours)."""
    return COLOURS[material]


def mesh_file(shape: Shape) -> Optional[str]:
    """The local file of a mesh shape's reference (``file://``, a path, ``package://``
    through the ament index, a web URL through the mesh cache), or ``None``
    (:func:`hrdf_ros.parts.mesh_sources.local_mesh_path`)."""
    return local_mesh_path(shape.filename)


__all__ = ['LinkShapes', 'Shape', 'colour', 'link_shapes', 'mesh_file', 'shapes_of']
