"""The robot model: HRDF elements resolved against the catalogue, in HEBI's frame order.

Conventions (same as HEBI's API):

* The *base frame* is the pose of the robot's root relative to the world/reference
  frame in which all kinematics are expressed; it is the HRDF ``<robot rot trans>``.
* Every element has an *input* frame (where it mounts: its parent's output frame, or the
  base frame), a centre-of-mass frame (not for ``joint`` elements), and one or more
  *output* frames. An end effector's output frame is an *end-effector* frame.
* Elements are kept in depth-first pre-order, which is HEBI's order for input and COM
  frames, for degrees of freedom (joint positions) and for masses. Output frames are
  ordered depth first too: each output is followed by the output frames of the subtree
  mounted on it, before the element's next output (:attr:`RobotModel.output_frames`).
  End-effector frames follow the order of the end-effector elements.
* A degree of freedom moves its element's output frames: output = input * fixed * M(q),
  where M is a rotation about (or a translation along) a principal axis of the frame
  after ``fixed``. Actuators rotate about +z; HRDF ``joint`` elements use their ``axis``
  with the motion scaled by :attr:`Element.motion_scale` (``axis_sign / gear_ratio``).

Units: m, kg, rad, kg m^2.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import List, Optional, Tuple

import numpy as np

#: HRDF element names, as in FORMAT.md.
ELEMENT_KINDS = ('actuator', 'link', 'bracket', 'rigid-body', 'joint', 'end-effector')

#: Joint motion axes: HRDF ``joint`` axis names; actuators use ``'rz'``.
MOTION_AXES = ('rx', 'ry', 'rz', 'tx', 'ty', 'tz')


@dataclass(frozen=True)
class LinkGeometry:
    """The shape parameters of an HRDF ``<link>`` (a tube between two interfaces).

    Attributes:
        input, output: end styles, ``'RightAngle'`` or ``'Inline'``.
        extension: m; twist: rad (as written in the HRDF).
        half_height: the link family's interface half height, m (catalogue).
    """

    input: str
    output: str
    extension: float
    twist: float
    half_height: float


@dataclass
class Element:
    """One HRDF robot element, resolved to numbers.

    Attributes:
        kind: HRDF element name (one of :data:`~hrdf_ros.model.ELEMENT_KINDS`).
        type: catalogue type (e.g. ``'X8-9'``), ``None`` for rigid-body and joint.
        tag: the HRDF ``tag`` attribute, or ``None``.
        parent: index of the parent element in :attr:`RobotModel.elements`, or -1 when
            the element mounts on the base frame.
        parent_output: index of the parent's output it mounts on.
        mass: kg (0 for joints).
        com: (4, 4) centre-of-mass frame in the input frame (translation m; rotation
            from ``com_rot``, whose axes the inertia is expressed in).
        inertia: (6,) ixx, iyy, izz, ixy, ixz, iyz about the COM, kg m^2.
        outputs: list of (4, 4) fixed output transforms in the input frame (for a
            degree of freedom, before the joint motion).
        motion: ``None`` for rigid elements, else a :data:`~hrdf_ros.model.MOTION_AXES` entry.
        gear_ratio: joint motion = position / gear_ratio (1 for actuators).
        axis_sign: +1, or -1 when the element moves about/along the negative ``motion``
            axis (HRDF ``axis="-rz"`` and the like, which hebi-py accepts).
        is_end_effector: True for ``end-effector`` elements (output = end-effector frame).
        implicit: True for the end effector added to HRDF <= 1.1.0 chains.
        max_speed: rad/s (or m/s) rated speed for degrees of freedom, else ``None``.
        max_effort: N m (or N) rated effort for degrees of freedom, else ``None``.
        line, column, path: where the element was written (0 / '' when implicit); for
            an element from an ``<include>``-d file, the included file.
        mesh_path: a rigid body's ``mesh_path`` as written in the HRDF (a ``/``-separated
            path relative to ``path``'s directory, or an ``http(s)://`` URL), or ``None``.
        mesh_file: the mesh as a URL or a local path (``mesh_path`` resolved against the
            directory of the HRDF file it was written in), or ``None`` when there is no
            mesh or the HRDF came from text without a base directory.
        mesh_transform: (4, 4) pose of the mesh's base frame in the element's input frame
            (``mesh_rot``, ``mesh_trans``; m), or ``None`` when there is no mesh.
        link: a ``<link>``'s styles, extension and twist (its geometry), else ``None``.
    """

    kind: str
    type: Optional[str]
    tag: Optional[str]
    parent: int
    parent_output: int
    mass: float
    com: np.ndarray
    inertia: np.ndarray
    outputs: List[np.ndarray]
    motion: Optional[str] = None
    gear_ratio: float = 1.0
    axis_sign: float = 1.0
    is_end_effector: bool = False
    implicit: bool = False
    max_speed: Optional[float] = None
    max_effort: Optional[float] = None
    line: int = 0
    column: int = 0
    path: str = ''
    mesh_path: Optional[str] = None
    mesh_file: Optional[str] = None
    mesh_transform: Optional[np.ndarray] = None
    link: Optional[LinkGeometry] = None

    @property
    def is_dof(self) -> bool:
        """True when the element contributes a degree of freedom."""
        return self.motion is not None

    @property
    def motion_scale(self) -> float:
        """Motion about/along the positive ``motion`` axis per unit of joint position:
        ``axis_sign / gear_ratio`` (rad/rad or m/m; 1 for actuators)."""
        return self.axis_sign / self.gear_ratio

    @property
    def has_com_frame(self) -> bool:
        """True when HEBI gives the element a COM frame (every kind but ``joint``)."""
        return self.kind != 'joint'


@dataclass
class RobotModel:
    """A parsed HRDF robot.

    Attributes:
        version: the HRDF version declared by the file, as a (major, minor, patch) tuple.
        base_frame: (4, 4) pose of the robot root in the reference frame.
        elements: every element in depth-first pre-order (see module docstring).
        description: the ``<robot description>`` text, or ``None``.
        path: the file the model came from (``'<string>'`` for text).
        warnings: diagnostics of severity ``'warning'`` found while parsing.
    """

    version: Tuple[int, int, int]
    base_frame: np.ndarray
    elements: List[Element]
    description: Optional[str] = None
    path: str = '<string>'
    warnings: list = field(default_factory=list)

    @property
    def dof_count(self) -> int:
        """Number of degrees of freedom (length of a joint position vector)."""
        return sum(1 for e in self.elements if e.is_dof)

    @property
    def dof_elements(self) -> List[int]:
        """Element indices of the degrees of freedom, in joint-position order."""
        return [i for i, e in enumerate(self.elements) if e.is_dof]

    def joint_names(self, prefix: str = 'J') -> List[str]:
        """The default name of each degree of freedom, in joint-position order: its
        element's HRDF ``tag``, else ``prefix`` and its 1-based position (``J1``, ``J2``,
        ...). These are the URDF/TF joint names unless an export is given others."""
        return [self.elements[e].tag or f'{prefix}{k + 1}'
                for k, e in enumerate(self.dof_elements)]

    @property
    def masses(self) -> np.ndarray:
        """(n_com,) masses in kg, one per COM frame (HEBI's ``masses`` order)."""
        return np.array([e.mass for e in self.elements if e.has_com_frame], dtype=float)

    @property
    def total_mass(self) -> float:
        """Sum of all element masses, kg."""
        return float(sum(e.mass for e in self.elements))

    @property
    def output_frames(self) -> List[Tuple[int, int]]:
        """(element index, output index) of every output frame, in HEBI's order.

        Depth first: an output frame is followed by the output frames of everything
        mounted on it, then comes the element's next output (hebi-py 2.16.1,
        ``get_forward_kinematics('output', ...)`` on tree robots).
        """
        mounted = {}
        for index, element in enumerate(self.elements):
            mounted.setdefault((element.parent, element.parent_output), []).append(index)
        order: List[Tuple[int, int]] = []
        # Explicit stack of (element, next output): no recursion on deep robots.
        stack = [(index, 0) for index in reversed(mounted.get((-1, 0), []))]
        while stack:
            index, k = stack.pop()
            if k >= len(self.elements[index].outputs):
                continue
            order.append((index, k))
            stack.append((index, k + 1))
            stack.extend((child, 0) for child in reversed(mounted.get((index, k), [])))
        return order

    def element_index(self, tag: str) -> int:
        """Index of the element whose HRDF ``tag`` is ``tag``.

        Unlike hebi-py 2.16.1's ``get_element_idx_by_tag``, which returns 0 for an
        unknown tag, an unknown tag is an error.

        Raises:
            KeyError: when no element has that tag.
        """
        for index, element in enumerate(self.elements):
            if element.tag == tag:
                return index
        raise KeyError(f"no element has tag '{tag}'")

    def frame_index(self, element: int, frame_type: str) -> int:
        """Index, among the frames of ``frame_type``, of an element's frame.

        ``input`` and ``com``: the element's input / centre-of-mass frame; ``output``:
        its first output frame; ``end_effector``: its end-effector frame. Matches
        hebi-py 2.16.1's ``get_frame_idx_from_element_idx``, except that where HEBI
        returns -1 this raises.

        Raises:
            IndexError: for an element index out of range.
            KeyError: when the element has no frame of that type (a ``joint`` has no
                COM frame; only ``end-effector`` elements have end-effector frames).
            ValueError: for an unknown frame type.
        """
        if not 0 <= element < len(self.elements):
            raise IndexError(f'element index {element} out of range '
                             f'(the robot has {len(self.elements)} elements)')
        self.frame_count(frame_type)  # validates frame_type
        if frame_type == 'input':
            return element
        if frame_type == 'output':
            return [e for e, _ in self.output_frames].index(element)
        if frame_type == 'com':
            frames = [i for i, e in enumerate(self.elements) if e.has_com_frame]
        else:
            frames = [i for i, e in enumerate(self.elements) if e.is_end_effector]
        if element not in frames:
            raise KeyError(f'element {element} ({self.elements[element].kind}) has no '
                           f'{frame_type} frame')
        return frames.index(element)

    def frame_count(self, frame_type: str) -> int:
        """Number of frames of a type: ``'input'``, ``'output'``, ``'com'``, ``'end_effector'``.

        Raises:
            ValueError: for an unknown frame type.
        """
        if frame_type == 'input':
            return len(self.elements)
        if frame_type == 'output':
            return sum(len(e.outputs) for e in self.elements)
        if frame_type == 'com':
            return sum(1 for e in self.elements if e.has_com_frame)
        if frame_type == 'end_effector':
            return sum(1 for e in self.elements if e.is_end_effector)
        raise ValueError(f"unknown frame type '{frame_type}' "
                         "(expected input, output, com or end_effector)")
