"""One robot as every writer sees it: :class:`RobotDescription`, built by :func:`describe`.

In: a :class:`~hrdf_ros.model.RobotModel` and the options every writer shares (naming,
joint limits, mesh source, gripper joints, geometry). Out: the frame tree, the limits and
:class:`~.joints.JointSpec` of each joint, the grippers' joints, the mesh source and
references, each link's shapes (:mod:`.link_shapes`), and on request the inertials
(:mod:`.inertials`), the :class:`~.structure.LinkTree` and the collision geometry that
the semantics (:mod:`.semantics`) are computed from. Nothing here knows a file format;
the URDF, SDFormat and MJCF writers and the MoveIt package spell this one answer.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Dict, List, Mapping, Optional, Sequence, Tuple

from ..model import RobotModel
from ..parts.meshes import export_meshes
from ..parts.mesh_sources import MeshSource
from .collision_shapes import CollisionGeometry, geometry_of_shape
from .frame_tree import FrameTree, build_frame_tree
from .gripper import GripperJointSpec
from .inertials import LinkInertial, link_inertials
from .joints import JointSpec, joint_spec
from .limits import JointLimit, limits_for_joints
from .link_shapes import LinkShapes, link_shapes
from .structure import LinkTree, link_tree


@dataclass
class RobotDescription:
    """A robot with its names, limits, joints and shapes decided.

    Attributes:
        model: the robot.
        name: its name (URDF ``<robot name>``, SDFormat model, MJCF model).
        tree: link and joint names (:mod:`.frame_tree`).
        limits: ``{joint: JointLimit}`` the user gave (:mod:`.limits`).
        joint_specs: ``{joint: JointSpec}`` of every degree of freedom of ``tree``.
        gripper_specs: every joint of every parallel gripper (finger, mimic, fixed).
        source: where HEBI's part meshes come from.
        references: ``{HRDF mesh: reference to write, or None for primitives}``.
        mesh_notes: lines on meshes drawn as primitives or left as URLs (``meshes:``).
        shapes: ``{link: LinkShapes}`` of every link that carries a part (empty when
            described without geometry).
    """

    model: RobotModel
    name: str
    tree: FrameTree
    limits: Dict[str, JointLimit]
    joint_specs: Dict[str, JointSpec]
    gripper_specs: List[GripperJointSpec]
    source: MeshSource
    references: Dict[str, Optional[str]]
    mesh_notes: List[str]
    shapes: Dict[str, LinkShapes]
    _inertials: Dict[bool, Dict[str, LinkInertial]] = field(default_factory=dict, repr=False)
    _link_tree: Optional[LinkTree] = field(default=None, repr=False)

    def inertials(self, exact_masses: bool = False) -> Dict[str, LinkInertial]:
        """The inertial of every link that gets one (:func:`~.inertials.link_inertials`;
        ``exact_masses``: HEBI's values without the physical fill). A new dict each
        call; the values are shared."""
        if exact_masses not in self._inertials:
            self._inertials[exact_masses] = link_inertials(self.model, self.tree,
                                                           exact_masses)
        return dict(self._inertials[exact_masses])

    def link_tree(self) -> LinkTree:
        """The kinematic tree as the URDF states it (:func:`~.structure.link_tree`)."""
        if self._link_tree is None:
            self._link_tree = link_tree(self.name, self.tree, self.joint_specs,
                                        self.gripper_specs, self.collision_links())
        return self._link_tree

    def collision_links(self) -> List[str]:
        """Links with at least one collision shape, in link order."""
        return [link for link, shapes in self.shapes.items() if shapes.collision]

    def collision_geometry(self) -> List[Tuple[str, List[CollisionGeometry]]]:
        """``[(link, its collision shapes)]`` as the URDF states them
        (:func:`~.collision_shapes.geometry_of_shape`), for the collision matrix."""
        return [(link, [geometry_of_shape(s) for s in shapes.collision])
                for link, shapes in self.shapes.items() if shapes.collision]


def describe(model: RobotModel, robot_name: str = 'hrdf_robot', *,
             joint_names: Optional[Sequence[str]] = None, joint_prefix: str = 'J',
             tree: Optional[FrameTree] = None, position_limits: Optional[Mapping] = None,
             mesh_dir: Optional[str] = None, meshes: str = 'auto', hebi_meshes: bool = False,
             gripper_joints: bool = True, geometry: bool = True) -> RobotDescription:
    """Decide everything the writers share about ``model``.

    Args:
        model: the robot.
        robot_name: its name in every output.
        joint_names, joint_prefix, gripper_joints: naming
            (:func:`~.frame_tree.build_frame_tree`), unless ``tree`` is given.
        tree: a precomputed frame tree (then the naming arguments are ignored).
        position_limits: user limits (:func:`~.limits.limits_for_joints`).
        mesh_dir, meshes, hebi_meshes: the mesh source
            (:func:`hrdf_ros.parts.meshes.export_meshes`).
        geometry: give links their shapes (false: no shapes, no mesh notes).

    Raises:
        ValueError: invalid or colliding names, invalid limits, an unusable mesh option
            (:class:`~hrdf_ros.parts.mesh_sources.MeshSourceError`).
    """
    if tree is None:
        tree = build_frame_tree(model, joint_names, joint_prefix, gripper_joints)
    limits = limits_for_joints(position_limits, tree.dof_names + tree.gripper_joint_names)
    source, references, mesh_notes = export_meshes(model, mesh_dir, meshes, hebi_meshes)
    specs = {joint.name: joint_spec(model.elements[joint.element], limits.get(joint.name))
             for joint in tree.joints if not joint.is_fixed}
    gripper_specs = [spec for g in tree.grippers for spec in g.joint_specs(limits.get(g.joint))]
    shapes = link_shapes(model, tree, source, references) if geometry else {}
    return RobotDescription(model, robot_name, tree, limits, specs, gripper_specs, source,
                            references, mesh_notes if geometry else [], shapes)


__all__ = ['RobotDescription', 'describe']
