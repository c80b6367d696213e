"""A robot model compiled for kinematics: the tree of joint frames and where every frame
hangs on it.

In: a :class:`~hrdf_ros.model.RobotModel`. Out: a :class:`KinematicStructure`, built once
per model, holding everything that does not depend on joint positions.

Every frame of a HEBI robot is a *joint frame* times a constant. Joint k's frame is the
output frame of its element after the motion::

    J_k(q) = J_p F_k M_k(q_k * s_k)

where p is the nearest moving ancestor joint (:attr:`KinematicStructure.joint_parent`,
-1: none, then ``J_p`` is the identity and ``F_k`` includes the robot's base frame),
``F_k`` the constant transform from ``J_p`` to the element's output before the motion
(:attr:`~KinematicStructure.joint_fixed`), ``M_k`` the rotation about (translation
along) a principal axis and ``s_k`` :attr:`~hrdf_ros.model.Element.motion_scale`. A frame
f of any type is then ``J_a(f) K_f`` with its *anchor* a(f) (the nearest joint above it,
or -1) and a constant ``K_f`` (:attr:`~KinematicStructure.anchors`,
:attr:`~KinematicStructure.offsets`). Joints are numbered in depth-first element order,
so a joint's parent always has a smaller index.

The joint k moves frame f exactly when k is a(f) or one of its ancestors
(:attr:`~KinematicStructure.moved`).
"""
from __future__ import annotations

from typing import Dict, List, Tuple

import numpy as np

from ..model import RobotModel

#: Frame types, in the order :meth:`~hrdf_ros.kinematics.Kinematics.forward_kinematics`
#: returns them.
FRAME_TYPES = ('input', 'output', 'com', 'end_effector')


def check_frame_type(frame_type: str) -> None:
    """Raises ValueError unless ``frame_type`` is one of :data:`FRAME_TYPES`."""
    if frame_type not in FRAME_TYPES:
        raise ValueError(f"unknown frame type '{frame_type}'; expected one of "
                         + ', '.join(FRAME_TYPES))


class KinematicStructure:
    """The position-independent part of a robot's kinematics (see module docstring).

    Attributes:
        model: the robot model.
        dof_count: number of joint positions (= joints).
        base_frame: (4, 4) base frame in the reference frame.
        joint_parent: per joint, the nearest moving ancestor joint, or -1.
        joint_fixed: (dof, 4, 4) constant transform from the parent joint's frame (the
            reference frame when there is none) to the joint's output before the motion.
        joint_axis: per joint, ``rx ry rz tx ty tz`` (the motion in its output frame).
        motion_scale: (dof,) motion per unit position (axis sign / gear ratio).
        joint_ancestors: per joint, the sorted joints that move it (itself included).
        anchors: frame type -> (n,) int, the joint each frame hangs on (-1: none).
        offsets: frame type -> (n, 4, 4) constant transform from the anchor's frame.
        moved: frame type -> (n, dof) bool, joint k moves frame f.
        output_count: number of output frames.
        com_elements / end_effector_elements: element index of each COM / end-effector
            frame.

    Raises:
        ValueError: when a degree of freedom has other than one output (HRDF actuators
            and joints have exactly one).
    """

    def __init__(self, model: RobotModel):
        self.model = model
        self.dof_count = dof = model.dof_count
        self.base_frame = np.array(model.base_frame, dtype=float)
        self.joint_parent: List[int] = []
        fixed: List[np.ndarray] = []
        self.joint_axis: List[str] = []
        scale: List[float] = []
        # (anchor, offset) of every element's input frame and of every output frame
        inputs: List[Tuple[int, np.ndarray]] = []
        outputs: Dict[Tuple[int, int], Tuple[int, np.ndarray]] = {}
        for index, element in enumerate(model.elements):
            if element.parent < 0:
                anchor, offset = -1, self.base_frame
            else:
                anchor, offset = outputs[(element.parent, element.parent_output)]
            inputs.append((anchor, offset))
            if element.is_dof:
                if len(element.outputs) != 1:
                    raise ValueError(f'element {index}: a degree of freedom must have '
                                     f'exactly one output, not {len(element.outputs)}')
                self.joint_parent.append(anchor)
                fixed.append(offset @ np.asarray(element.outputs[0], dtype=float))
                self.joint_axis.append(element.motion)
                scale.append(element.motion_scale)
                outputs[(index, 0)] = (len(self.joint_parent) - 1, np.eye(4))
            else:
                for k, out in enumerate(element.outputs):
                    outputs[(index, k)] = (anchor, offset @ np.asarray(out, dtype=float))
        self.joint_fixed = np.array(fixed, dtype=float).reshape(dof, 4, 4)
        self.motion_scale = np.array(scale, dtype=float)
        self.joint_ancestors: List[List[int]] = []
        for k, parent in enumerate(self.joint_parent):
            above = self.joint_ancestors[parent] if parent >= 0 else []
            self.joint_ancestors.append(above + [k])
        self.com_elements = [i for i, e in enumerate(model.elements) if e.has_com_frame]
        self.end_effector_elements = [i for i, e in enumerate(model.elements)
                                      if e.is_end_effector]
        self.output_count = len(model.output_frames)
        frames = {
            'input': inputs,
            'output': [outputs[frame] for frame in model.output_frames],
            'com': [(inputs[i][0], inputs[i][1] @ np.asarray(model.elements[i].com, float))
                    for i in self.com_elements],
            'end_effector': [outputs[(i, 0)] for i in self.end_effector_elements],
        }
        self.anchors = {t: np.array([a for a, _ in v], dtype=int) for t, v in frames.items()}
        self.offsets = {t: np.array([o for _, o in v], dtype=float).reshape(-1, 4, 4)
                        for t, v in frames.items()}
        self.moved = {t: self.moved_mask(a) for t, a in self.anchors.items()}

    def moved_mask(self, anchors: np.ndarray) -> np.ndarray:
        """(n, dof) bool: which joints move frames hung on ``anchors`` (-1: none)."""
        out = np.zeros((len(anchors), self.dof_count), dtype=bool)
        for f, anchor in enumerate(anchors):
            if anchor >= 0:
                out[f, self.joint_ancestors[anchor]] = True
        return out

    def frame_count(self, frame_type: str) -> int:
        """Number of frames of a type (see :meth:`~hrdf_ros.model.RobotModel.frame_count`)."""
        return len(self.anchors[frame_type])
