"""Planning groups of a URDF tree: one chain per segment between branch points and tips.

In: the link tree (:class:`~.structure.LinkTree`, as the URDF states it) and the
end-effector links (from the :class:`~hrdf_ros.description.frame_tree.FrameTree`). Out:
:class:`PlanningGroup` s, each a ``<chain>`` from ``base`` to ``tip`` with at least one
movable joint.

Stops split the tree: the root link, every end-effector link, and every *branch point*,
a link with two or more child subtrees that hold a movable joint or an end effector. A
group is the path from a stop down to the next stop; where the path runs out of movable
joints and end effectors below it, it ends at the leaf reached by following the first
child joint (URDF order, which is HEBI's depth-first order). So a serial arm is one
group ``base_link`` -> end effector, each leg of a hexapod is a group chassis -> foot,
and a trunk with joints below a branch point is a group of its own. Groups never share a
joint, so all their controllers can run at once; a path without a movable joint (a
chassis, a tool mounted on it) is no group. Groups are named ``arm`` when there is one,
else ``arm1``, ``arm2``... in tree order (stops in pre-order, each stop's paths in URDF
child order, so the legs of a hexapod are numbered like its end effectors). A group with
fewer than 6 joints cannot reach arbitrary poses: its IK is position-only
(:attr:`PlanningGroup.position_only`).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Dict, List, Optional, Sequence

from .structure import LinkTree, TreeJoint

#: Joints a group needs for full-pose IK (position and orientation).
FULL_POSE_DOF = 6


@dataclass(frozen=True)
class PlanningGroup:
    """A MoveIt planning group: the chain from ``base`` to ``tip``.

    Attributes:
        name: group name (``arm``, or ``arm1``, ``arm2``...).
        base: the chain's base link (the root or a branch point).
        tip: the chain's tip link (an end effector or a leaf).
        links: base .. tip, in order.
        joints: the movable joints along the chain, base to tip.
        end_effector: the tip when it is an end-effector link, else ``None``.
    """

    name: str
    base: str
    tip: str
    links: List[str]
    joints: List[str]
    end_effector: Optional[str]

    @property
    def controller(self) -> str:
        """Name of the group's joint_trajectory_controller."""
        return f'{self.name}_controller'

    @property
    def position_only(self) -> bool:
        """True when the group has fewer than 6 joints (position-only IK)."""
        return len(self.joints) < FULL_POSE_DOF


def _relevant(urdf: LinkTree, children: Dict[str, List[TreeJoint]],
              end_effectors: set) -> Dict[str, bool]:
    """Per link: its subtree holds a movable joint or an end-effector link."""
    order, stack = [], [urdf.root]
    while stack:
        link = stack.pop()
        order.append(link)
        stack.extend(j.child for j in children.get(link, []))
    relevant: Dict[str, bool] = {}
    for link in reversed(order):
        relevant[link] = link in end_effectors or any(
            j.is_movable or relevant[j.child] for j in children.get(link, []))
    return relevant


def planning_groups(urdf: LinkTree, end_effector_links: Sequence[str],
                    ignored_links: Sequence[str] = ()) -> List[PlanningGroup]:
    """The planning groups of a URDF tree (see the module docstring).

    Args:
        urdf: the kinematic tree.
        end_effector_links: the end-effector link names.
        ignored_links: links left out with what hangs on them (a parallel gripper's
            parts: their joints form the gripper's own group, :mod:`.gripper_groups`).

    Returns:
        The groups in tree order (empty for a robot without movable joints).

    Raises:
        ValueError: when an end-effector link is not a link of the URDF.
    """
    for tip in end_effector_links:
        if tip not in urdf.links:
            raise ValueError(f'end-effector link "{tip}" is not in the URDF')
    end_effectors = set(end_effector_links)
    children: Dict[str, List[TreeJoint]] = {}
    ignored = set(ignored_links)
    for joint in urdf.joints:
        if joint.child not in ignored:
            children.setdefault(joint.parent, []).append(joint)
    relevant = _relevant(urdf, children, end_effectors)

    def useful(link: str) -> List[TreeJoint]:
        return [j for j in children.get(link, []) if j.is_movable or relevant[j.child]]

    def is_stop(link: str) -> bool:
        return link in end_effectors or len(useful(link)) >= 2

    segments = []
    stack = [urdf.root]
    while stack:
        start = stack.pop()
        found = []
        for first in useful(start):
            links, joints, joint = [start], [], first
            while True:
                links.append(joint.child)
                if joint.is_movable:
                    joints.append(joint.name)
                link = joint.child
                if is_stop(link):
                    found.append(link)
                    break
                below = useful(link)
                if below:
                    joint = below[0]
                    continue
                while children.get(link):            # to the leaf of the first child
                    joint = children[link][0]
                    links.append(joint.child)
                    link = joint.child
                break
            if joints:
                segments.append((links, joints))
        stack.extend(reversed(found))
    names = ['arm'] if len(segments) == 1 else [f'arm{k + 1}' for k in range(len(segments))]
    return [PlanningGroup(name, links[0], links[-1], links, joints,
                          links[-1] if links[-1] in end_effectors else None)
            for name, (links, joints) in zip(names, segments)]
