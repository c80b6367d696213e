"""A robot model compiled for every-frame kinematics: slots, steps, which joint moves what.

In: a :class:`~hrdf_ros.model.RobotModel`. Out: a :class:`KinematicStructure`, built once
per model, holding everything the every-frame FK (:mod:`.forward`) and Jacobians
(:mod:`.jacobians`) need and that does not depend on joint positions:

* output *slots*: output frames numbered in HEBI's order
  (:attr:`~hrdf_ros.model.RobotModel.output_frames`); each element's input frame is the
  slot of the output it mounts on (or the base frame);
* one :class:`Step` per element in depth-first order, so a single pass over the steps
  computes every frame from frames already computed;
* per frame type, a (n_frames, dof) mask of the joints that move each frame;
* the factor bases of :func:`~hrdf_ros.kinematics.serial_chain.factor_basis` for one
  configuration, and per joint its motion frame slot, axis column and kind.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Dict, List, Optional, Tuple

import numpy as np

from ..model import RobotModel
from .serial_chain import factor_basis

#: Frame types, in the order :meth:`~hrdf_ros.kinematics.Kinematics.forward_kinematics`
#: returns them.
FRAME_TYPES = ('input', 'output', 'com', 'end_effector')


def check_frame_type(frame_type: str) -> None:
    """Raises ValueError unless ``frame_type`` is one of :data:`FRAME_TYPES`."""
    if frame_type not in FRAME_TYPES:
        raise ValueError(f"unknown frame type '{frame_type}'; expected one of "
                         + ', '.join(FRAME_TYPES))


@dataclass
class Step:
    """One element in the every-frame pass."""

    parent_slot: int            # output-frame slot the element mounts on (-1: base)
    output_slots: List[int]     # slots of this element's outputs
    outputs: np.ndarray         # (k, 4, 4) fixed output transforms in the input frame
    com: Optional[np.ndarray]   # (4, 4) COM frame in the input frame, None for joints
    dof: int                    # index into the positions, or -1
    axis: str                   # 'rx' ... 'tz', '' for rigid elements
    scale: float                # motion per unit position (Element.motion_scale)


def _moving_dofs(model: RobotModel, steps: List[Step]) -> List[List[int]]:
    """Per element: the dofs that move its input (and COM) frame, i.e. the dofs of its
    strict ancestors."""
    moved_by: List[List[int]] = []
    for element in model.elements:
        above = [] if element.parent < 0 else list(moved_by[element.parent])
        if element.parent >= 0 and steps[element.parent].dof >= 0:
            above.append(steps[element.parent].dof)
        moved_by.append(above)
    return moved_by


def _mask(rows: List[List[int]], dof: int) -> np.ndarray:
    out = np.zeros((len(rows), dof), dtype=bool)
    for r, dofs in enumerate(rows):
        out[r, dofs] = True
    return out


class KinematicStructure:
    """The position-independent part of a robot's kinematics (see module docstring).

    Attributes:
        model: the robot model.
        dof_count: number of joint positions.
        base_frame: (4, 4) base frame in the reference frame.
        steps: one :class:`Step` per element, depth-first.
        output_count: number of output frames (slots).
        end_effector_slots: output slot of each end-effector frame.
        com_elements / end_effector_elements: element index of each COM / end-effector
            frame.
        moved: frame type -> (n_frames, dof) bool, joint k moves frame f.
        motion_scale: (dof, 1) motion per unit position per joint
            (:attr:`~hrdf_ros.model.Element.motion_scale`: axis sign / gear ratio).
        dof_steps: the steps with a degree of freedom, in joint order.
        output_basis, output_dofs, output_scale, output_prismatic: per output slot, the
            (3, 16) factor basis, its dof (0 when rigid), motion scale (0 when rigid)
            and whether the motion is a translation.
        joint_slots, joint_axis_columns, joint_prismatic, joint_basis: per joint, the slot
            of its motion frame (first output), the column of its axis, whether it is
            prismatic, and its (3, 16) factor basis.
    """

    def __init__(self, model: RobotModel):
        self.model = model
        self.dof_count = dof = model.dof_count
        self.base_frame = np.array(model.base_frame, dtype=float)
        slot_of: Dict[Tuple[int, int], int] = {
            frame: slot for slot, frame in enumerate(model.output_frames)}
        dof_of_element = {e: k for k, e in enumerate(model.dof_elements)}
        self.steps: List[Step] = []
        for index, element in enumerate(model.elements):
            parent = -1 if element.parent < 0 else slot_of[(element.parent,
                                                            element.parent_output)]
            self.steps.append(Step(
                parent, [slot_of[(index, k)] for k in range(len(element.outputs))],
                np.array(element.outputs, dtype=float).reshape(-1, 4, 4),
                element.com if element.has_com_frame else None,
                dof_of_element.get(index, -1), element.motion or '', element.motion_scale))
        self.output_count = len(slot_of)
        self.end_effector_slots = [self.steps[i].output_slots[0]
                                   for i, e in enumerate(model.elements) if e.is_end_effector]
        self.com_elements = [i for i, e in enumerate(model.elements) if e.has_com_frame]
        self.end_effector_elements = [i for i, e in enumerate(model.elements)
                                      if e.is_end_effector]
        self._build_masks()
        self.dof_steps = sorted((st for st in self.steps if st.dof >= 0), key=lambda st: st.dof)
        self.motion_scale = np.ones((dof, 1))
        for st in self.dof_steps:
            self.motion_scale[st.dof] = st.scale
        self._build_bases()

    def _build_masks(self) -> None:
        moved_by = _moving_dofs(self.model, self.steps)
        output_rows: List[List[int]] = [[] for _ in range(self.output_count)]
        for index, step in enumerate(self.steps):
            own = [step.dof] if step.dof >= 0 else []
            for s in step.output_slots:
                output_rows[s] = moved_by[index] + own
        dof = self.dof_count
        self.moved = {
            'input': _mask(moved_by, dof),
            'output': _mask(output_rows, dof),
            'com': _mask([moved_by[i] for i in self.com_elements], dof),
        }
        self.moved['end_effector'] = self.moved['output'][self.end_effector_slots]

    def _build_bases(self) -> None:
        # One configuration: every output transform F M(q) = a P + b Q + R (as in
        # serial_chain); rigid outputs have P = Q = 0 and R = F.
        slots = self.output_count
        self.output_basis = np.zeros((slots, 3, 16))
        self.output_dofs = np.zeros(slots, dtype=int)
        self.output_scale = np.zeros(slots)
        self.output_prismatic = np.zeros(slots, dtype=bool)
        for st in self.steps:
            for k, slot in enumerate(st.output_slots):
                self.output_basis[slot] = factor_basis(st.outputs[k], st.axis or None)
                if st.dof < 0:
                    continue
                self.output_dofs[slot] = st.dof
                self.output_scale[slot] = st.scale
                self.output_prismatic[slot] = st.axis[0] == 't'
        self.joint_slots = [st.output_slots[0] for st in self.dof_steps]
        self.joint_axis_columns = np.array(['xyz'.index(st.axis[1]) for st in self.dof_steps],
                                           dtype=int)
        self.joint_prismatic = np.array([st.axis[0] == 't' for st in self.dof_steps],
                                        dtype=bool)
        self.joint_basis = self.output_basis[self.joint_slots].reshape(-1, 3, 16)

    def frame_count(self, frame_type: str) -> int:
        """Number of frames of a type (see :meth:`~hrdf_ros.model.RobotModel.frame_count`)."""
        return self.model.frame_count(frame_type)
