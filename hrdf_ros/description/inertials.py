"""Link inertials for the URDF and SDF: HEBI's mass properties, plus a small documented
fill where HEBI's model leaves a body without mass or rotational inertia.

In: a :class:`~hrdf_ros.model.RobotModel` and its
:class:`~hrdf_ros.description.frame_tree.FrameTree`. Out: one :class:`LinkInertial` per link
that gets an ``<inertial>`` (mass kg; COM frame (4, 4) in the link frame, m; inertia
(ixx, iyy, izz, ixy, ixz, iyz) about the COM in the COM frame's axes, kg m^2), and
human-readable notes saying where the fill went.

Why a fill. HEBI's library needs no mass on a body that carries no hardware: the output
side of the last actuator when the arm ends in a ``Custom`` end effector, HRDF
``<joint>`` elements, the frame at an end effector or a free output. Simulators and
dynamics libraries reject or alter such bodies (measured with the versions in the
"Works in" table of doc/explanation/consumers.md):

* SDFormat's URDF conversion (Gazebo) drops a link with mass <= 1e-6 kg and, silently,
  everything mounted after it;
* Drake's and Pinocchio's forward dynamics fail (mass matrix not positive definite)
  when a body that a joint moves has no moment of inertia about that joint, which a
  point mass on the axis (mass, zero tensor) does not give either;
* MuJoCo rejects moving bodies with mass or principal moments <= 1e-15 (``mjMINVAL``);
* PyBullet gives every link without ``<inertial>`` 1 kg.

The fill, unless ``exact_masses``: every link but the root (``base_link``, which KDL
requires to have no inertia) gets an ``<inertial>``;

* a link whose mass is below :data:`FILL_MASS` (0 for the bodies above) gets
  :data:`FILL_MASS`, at its element's COM frame (the link origin for links without an
  element);
* a link whose smallest principal moment is below :data:`FILL_MOMENT` (zero for those
  bodies and for point masses) gets an isotropic moment added so that it is
  :data:`FILL_MOMENT`. An isotropic addition keeps the principal axes and, if it held,
  the triangle inequality;
* a tensor written in the HRDF whose principal moments break the triangle inequality
  (the reader warns about it, code ``nonphysical-inertia``) gets the isotropic moment
  that makes the largest equal to the sum of the other two (Drake warns about such a
  body and MuJoCo rejects it).

:data:`FILL_MASS` is ten times SDFormat's 1e-6 kg threshold, the strictest of the
consumers; :data:`FILL_MOMENT` is the moment of inertia of a solid sphere of that mass
and radius :data:`FILL_RADIUS` (2/5 m r^2 = 4e-10 kg m^2), 4e5 times MuJoCo's
threshold. On a HEBI arm the fill adds 1e-5 to 3e-5 kg (well under 0.01 % of its mass)
and changes gravity torques by about 1e-4 N m. ``exact_masses`` writes HEBI's values
as they are (no ``<inertial>`` for massless links).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Dict, List, Tuple

import numpy as np

from .. import reproducible
from ..model import RobotModel
from .frame_tree import FrameTree
from .gripper import gripper_inertials

#: Mass given to a link that HEBI leaves (nearly) massless, kg.
FILL_MASS = 1e-5
#: Radius of the solid sphere whose inertia is the fill's, m.
FILL_RADIUS = 0.01
#: Smallest principal moment of inertia a link is given, kg m^2 (2/5 FILL_MASS FILL_RADIUS^2).
FILL_MOMENT = 0.4 * FILL_MASS * FILL_RADIUS ** 2


@dataclass(frozen=True)
class LinkInertial:
    """The ``<inertial>`` of one link.

    Attributes:
        mass: kg.
        com: (4, 4) COM frame in the link frame (m); the inertia is about its origin, in
            its axes.
        inertia: (ixx, iyy, izz, ixy, ixz, iyz), kg m^2.
        added_mass: kg of :data:`FILL_MASS` in ``mass`` (0 when HEBI's mass is kept).
        added_moment: isotropic kg m^2 added to each principal moment (0: none).
    """

    mass: float
    com: np.ndarray
    inertia: Tuple[float, float, float, float, float, float]
    added_mass: float = 0.0
    added_moment: float = 0.0

    @property
    def filled(self) -> bool:
        """True when the fill changed HEBI's values."""
        return self.added_mass > 0.0 or self.added_moment > 0.0


def tensor_matrix(inertia) -> np.ndarray:
    """(3, 3) symmetric matrix of (ixx, iyy, izz, ixy, ixz, iyz), kg m^2."""
    ixx, iyy, izz, ixy, ixz, iyz = (float(v) for v in inertia)
    return np.array([[ixx, ixy, ixz], [ixy, iyy, iyz], [ixz, iyz, izz]])


def _filled(mass: float, com: np.ndarray, inertia) -> LinkInertial:
    added_mass = FILL_MASS - mass if mass < FILL_MASS else 0.0
    low, mid, high = (float(v) for v in reproducible.symmetric_eigenvalues(tensor_matrix(inertia)))
    added_moment = max(FILL_MOMENT - low, 0.0)
    if high - mid - low > 1e-12 * high:   # an HRDF tensor breaking the triangle inequality
        added_moment = max(added_moment, high - mid - low)
    values = np.array(inertia, dtype=float)
    values[:3] += added_moment
    return LinkInertial(mass + added_mass, np.array(com, dtype=float),
                        tuple(float(v) for v in values), added_mass, added_moment)


def link_inertials(model: RobotModel, tree: FrameTree,
                   exact_masses: bool = False) -> Dict[str, LinkInertial]:
    """The inertial of every link that gets one, by link name.

    Args:
        model: the robot.
        tree: its frame tree (link names).
        exact_masses: HEBI's masses and tensors only: links of massless elements and
            the links of free outputs get no inertial (see the module docstring).

    Returns:
        ``{link name: LinkInertial}``; the root link never has one. A parallel
        gripper's links share its mass (:func:`~.gripper.gripper_inertials`).
    """
    out: Dict[str, LinkInertial] = {}
    element_of_link = {name: i for i, name in enumerate(tree.element_links)}
    # a parallel gripper's mass is split over its links (hrdf_ros.description.gripper)
    split = {}
    for gripper in tree.grippers:
        element = model.elements[gripper.element]
        parts = gripper_inertials(element.mass, element.com)
        split.update({gripper.link_of(part): values for part, values in parts.items()})
    for name in tree.links[1:] + [n for g in tree.grippers for n in g.links.values()]:
        index = element_of_link.get(name)
        element = model.elements[index] if index is not None else None
        mass = element.mass if element is not None else 0.0
        com = element.com if element is not None else np.eye(4)
        inertia = tuple(element.inertia) if element is not None else (0.0,) * 6
        if name in split:
            mass, com, inertia = split[name]
        if exact_masses:
            if mass > 0.0:
                out[name] = LinkInertial(float(mass), np.array(com, dtype=float),
                                         tuple(float(v) for v in inertia))
            continue
        out[name] = _filled(float(mass), com, inertia)
    return out


def fill_notes(inertials: Dict[str, LinkInertial], total_mass: float) -> List[str]:
    """One line per filled link, then a summary line; empty when nothing was filled.

    Args:
        inertials: from :func:`link_inertials`.
        total_mass: HEBI's total mass of the robot, kg (for the relative change).
    """
    notes = []
    for name, inertial in inertials.items():
        if not inertial.filled:
            continue
        parts = []
        if inertial.added_mass > 0.0:
            parts.append(f'mass {inertial.mass - inertial.added_mass:.6g} -> '
                         f'{inertial.mass:.6g} kg')
        if inertial.added_moment > 0.0:
            parts.append(f'+{inertial.added_moment:.3g} kg m^2 on each principal moment')
        notes.append(f'{name}: {", ".join(parts)}')
    added = sum(i.added_mass for i in inertials.values())
    if notes:
        share = f' = {100 * added / total_mass:.2g} % of HEBI\'s {total_mass:.6g} kg' \
            if total_mass > 0 else ''
        notes.append(f'physical fill on {len(notes)} link(s): +{added:.3g} kg{share}')
    return notes


def fill_summary(inertials: Dict[str, LinkInertial]) -> List[dict]:
    """Machine-readable fill: ``[{'link', 'added_mass' kg, 'added_moment' kg m^2}]``."""
    return [{'link': name, 'added_mass': i.added_mass, 'added_moment': i.added_moment}
            for name, i in inertials.items() if i.filled]


def added_mass(inertials: Dict[str, LinkInertial]) -> float:
    """Total mass the fill added, kg."""
    return float(sum(i.added_mass for i in inertials.values()))
