"""Whether a design does a task, and how close it comes: one evaluation of ``hrdf design``.

In: a :class:`~.space.Design` and a :class:`~.task.Task`. Out: an :class:`Evaluation`:
per target the configuration collision-free IK found, whether it reaches the target free
of collision, the worst ratio of effort to rated effort there; the design's mass; the
key it ranks by.

A design **meets** a task when at every target:

1. collision-free IK (the motion planner's scene: the arm's own links, with the SRDF's
   adjacent, default and always-colliding pairs left out, and the task's objects and
   floor) finds a configuration within the joint limits that reaches the target (the
   solver's tolerances, 1e-5 m and 1e-5 rad, well inside the task's 1 mm and 0.01 rad);
2. there, the gravity efforts plus the payload's (``m g J_v^T z``: a mass at the end
   effector's origin), per joint, are within the rated effort (HEBI's ``max_efforts``)
   times ``1 - margin``: the **effort ratio** ``|tau_j| / (rated_j (1 - margin))`` is at
   most 1 on every joint.

**Sizing.** The actuators of one size (X5-1, X5-4 and X5-9; X8-3, X8-9 and X8-16; ...)
share their geometry and centre of mass and differ in mass and rated effort
(:func:`~.space.size_of`). A design is evaluated with the strongest of each joint's size
(IK and collisions do not depend on which), then each joint, tip to base, gets the
lightest actuator of its size that holds the efforts at every target reached (a joint's
gravity effort depends only on the masses beyond it, which are chosen by then; among
actuators of equal mass, the least rated effort, the fastest). The evaluation is of that
sized design: the lightest of its geometry that holds the payload in those
configurations. The efforts are linear in the bodies' masses, ``tau = - sum_i m_i
J_com,i^T g``, so each choice costs a matrix product, not a new model. ``size=False``
evaluates a design as it is (a kit as sold).

Designs rank lexicographically, as Külz and Althoff rank modular robots (2023): more
targets reached free of collision first, then less effort excess (the sum over those
targets of how far the worst ratio passes 1), then less mass (kg, HEBI's masses:
``RobotModel.masses``, a parallel gripper's included).

The scene checks more link pairs than the SRDF ``hrdf moveit`` writes (no ``Never``
pairs: sampling 10 000 states per design would cost a second each), so a configuration
free here is free for MoveIt too. A target farther from the base than the chain's
length (the sum of its elements' output offsets) is not searched. The IK is bounded by
counts (:data:`MAX_ATTEMPTS` starts of :data:`MAX_ITERATIONS` steps), never by time, on
one kinematics path whatever the process's default (:func:`kinematics_path`): the same
design and task give the same evaluation in every process.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Tuple

import numpy as np

from ..kinematics.gravity import HEBI_GRAVITY
from ..kinematics.ik_solver import halton_points, primes
from ..model import RobotModel
from ..hrdf.catalogue import ACTUATORS
from ..reach.payload import lifting_efforts, rated_efforts
from .space import Design, size_of, strongest, variants
from .task import Task

#: Starts of collision-free IK per target (the nearest free configurations of the
#: planner's seed table first).
MAX_ATTEMPTS = 24
#: Levenberg-Marquardt steps per start.
MAX_ITERATIONS = 100
#: Extra starts for a target reached in collision or over the efforts: the first
#: solution is not always the one that holds the payload.
EFFORT_ATTEMPTS = 8


@dataclass(frozen=True)
class Evaluation:
    """A design against a task (module docstring).

    Attributes:
        design: the design.
        mass: kg.
        joint_names: the URDF joint names of the configurations (``hrdf urdf``'s).
        configurations: joint positions, rad, an array of shape (targets, dof); where a
            target is not reached, the closest the IK came.
        reached: whether each target is reached free of collision, bools of shape
            (targets,).
        effort_ratios: the worst joint's effort ratio at each target (module
            docstring), shape (targets,); inf where not reached.
        binding_joints: the joint of that ratio at each target, ints of shape
            (targets,); -1 where not reached.
    """

    design: Design
    mass: float
    joint_names: Tuple[str, ...]
    configurations: np.ndarray
    reached: np.ndarray
    effort_ratios: np.ndarray
    binding_joints: np.ndarray

    @property
    def met(self) -> np.ndarray:
        """Whether each target is met (reached free of collision, efforts within the
        limits), a bool array of shape (targets,)."""
        return self.reached & (self.effort_ratios <= 1.0)

    @property
    def meets(self) -> bool:
        """True when every target is met."""
        return bool(self.met.all())

    @property
    def effort_excess(self) -> float:
        """Sum over the targets reached of how far the worst effort ratio passes 1."""
        ratios = self.effort_ratios[self.reached]
        return float(np.maximum(ratios - 1.0, 0.0).sum())

    @property
    def worst_effort_ratio(self) -> float:
        """The largest effort ratio over the targets reached; inf where none is."""
        return float(self.effort_ratios[self.reached].max()) if self.reached.any() \
            else float('inf')

    def rank_key(self) -> Tuple[int, float, float]:
        """Smaller is better: (targets not reached, effort excess, mass)."""
        return (int((~self.reached).sum()), self.effort_excess, self.mass)


def chain_length(model: RobotModel) -> float:
    """m: the sum of the elements' output offsets, base to end effector; no point the end
    effector reaches is farther than this from the base's input frame (the triangle
    inequality: joints rotate offsets, they do not lengthen them)."""
    return float(sum(np.linalg.norm(e.outputs[0][:3, 3]) for e in model.elements
                     if e.outputs))


def effort_ratios(kinematics, q: np.ndarray, payload: float, limits: np.ndarray
                  ) -> Tuple[np.ndarray, np.ndarray]:
    """Worst effort ratio and its joint per configuration.

    Args:
        kinematics: the arm's :class:`~hrdf_ros.kinematics.Kinematics`.
        q: (N, dof) joint positions, rad.
        payload: kg at the end effector's origin.
        limits: (dof,) N m, the efforts allowed (rated times ``1 - margin``).

    Returns:
        ``(ratio (N,), joint (N,) int)``.
    """
    tau = kinematics.gravity_efforts(q, HEBI_GRAVITY) + payload * lifting_efforts(
        kinematics.end_effector_jacobian(q)[:, :3, :], HEBI_GRAVITY)
    ratios = np.abs(tau) / limits[None, :]
    joint = np.argmax(ratios, axis=1)
    return ratios[np.arange(len(q)), joint], joint


def kinematics_path() -> str:
    """The kinematics path of every evaluation: the compiled one (``hrdf_ros[fast]``)
    when numba is installed, numpy otherwise; ``HRDF_ROS_KINEMATICS`` in the environment
    still forces one (:mod:`hrdf_ros.kinematics.backend`). Not the process default: a
    CLI process (numpy) and its pool's workers (the API's ``auto``) must agree."""
    from ..kinematics.backend import numba_installed               # noqa: PLC0415
    return 'numba' if numba_installed() else 'numpy'


class Evaluator:
    """Evaluates designs against one task (module docstring); one per process."""

    def __init__(self, task: Task):
        self.task = task
        self._poses = np.array([t.pose for t in task.targets])
        self._orientations = [t.orientation for t in task.targets]

    def planner(self, model: RobotModel):
        """The motion planner of a design: its scene with the task's objects, the
        stricter self-collision matrix (module docstring)."""
        from ..description.robot import describe                  # noqa: PLC0415
        from ..description.semantics import semantics               # noqa: PLC0415
        from ..motion.planner import MotionPlanner                  # noqa: PLC0415
        description = describe(model, 'robot')
        return MotionPlanner(model, self.task.collision_objects, description=description,
                             semantics=semantics(description, never=False, home=False),
                             kinematics=kinematics_path())

    def solve(self, planner, k: int, attempts: int, seed=None):
        """Collision-free IK of target ``k`` (0-based) on ``planner`` (:meth:`planner`):
        ``attempts`` starts of :data:`MAX_ITERATIONS` steps, from ``seed`` (rad) or the
        planner's seed table; the planner's ``IkResult``."""
        return planner.solve_ik(self._poses[k], seed, orientation=self._orientations[k],
                                timeout=None, max_iterations=MAX_ITERATIONS,
                                max_attempts=attempts)

    def evaluate(self, design: Design, size: bool = True) -> Evaluation:
        """The design against the task: sized (module docstring), or as it is.

        Raises:
            HrdfError: parts that do not fit (the reader's located error).
        """
        if size:
            design = design.with_actuators(strongest(size_of(a)) for a in design.actuators)
        model = design.model()
        planner = self.planner(model)
        kinematics, dof = planner.kinematics, model.dof_count
        limits = rated_efforts(model) * (1.0 - self.task.margin)
        count = len(self._poses)
        q = np.zeros((count, dof))
        reached = np.zeros(count, dtype=bool)
        ratios, joints = np.full(count, np.inf), np.full(count, -1, dtype=np.int64)
        length = chain_length(model)
        for k in range(count):
            if np.linalg.norm(self._poses[k, :3, 3] - model.base_frame[:3, 3]) > length:
                continue
            result = self.solve(planner, k, MAX_ATTEMPTS)
            q[k] = result.positions
            if not result.success:
                continue
            reached[k] = True
            ratio, joint = effort_ratios(kinematics, q[k][None], self.task.payload, limits)
            ratios[k], joints[k] = ratio[0], joint[0]
            if ratios[k] > 1.0:
                self._lighter(planner, k, q, ratios, joints, limits)
        if size:
            design, model = self._sized(design, model, kinematics, q[reached])
            limits = rated_efforts(model) * (1.0 - self.task.margin)
            if reached.any():
                tau = self._efforts(model, kinematics, q[reached])
                worst = np.abs(tau) / limits[None, :]
                joints[reached] = np.argmax(worst, axis=1)
                ratios[reached] = worst[np.arange(len(worst)), joints[reached]]
        return Evaluation(design, float(model.masses.sum()), tuple(planner.joint_names),
                          q, reached, ratios, joints)

    def misses(self, evaluation: Evaluation) -> Tuple[str, ...]:
        """Per target, what keeps the design from meeting it: ``''`` (met),
        ``'out of reach'`` (no configuration reaches it, collisions aside),
        ``'in collision'`` (reached only in collision) or ``'effort of J3'`` (the
        joint whose effort passes its rated effort there)."""
        model = evaluation.design.model()
        planner = self.planner(model)
        length = chain_length(model)
        text = []
        for k, met in enumerate(evaluation.met):
            if met:
                text.append('')
            elif evaluation.reached[k]:
                text.append(f'effort of {evaluation.joint_names[evaluation.binding_joints[k]]}')
            elif np.linalg.norm(self._poses[k, :3, 3] - model.base_frame[:3, 3]) > length:
                text.append('out of reach')
            else:
                plain = planner.solve_ik(self._poses[k], evaluation.configurations[k],
                                         orientation=self._orientations[k], timeout=None,
                                         max_iterations=MAX_ITERATIONS * MAX_ATTEMPTS,
                                         avoid_collisions=False)
                text.append('in collision' if plain.success else 'out of reach')
        return tuple(text)

    def _unit_efforts(self, kinematics, q):
        """((N, bodies, dof) efforts per kg of each body, (N, dof) the payload's) at
        configurations ``q`` (N, dof): ``tau = sum_b masses[b] unit[:, b] + payload``.
        Sums in a fixed order, elementwise (no BLAS, no einsum): the same bits on every
        machine."""
        unit = lifting_efforts(kinematics.jacobians('com', q)[..., :3, :], HEBI_GRAVITY)
        payload = self.task.payload * lifting_efforts(
            kinematics.end_effector_jacobian(q)[:, :3, :], HEBI_GRAVITY)
        return unit, payload

    @staticmethod
    def _combine(unit, payload, masses):
        tau = payload.copy()
        for body, mass in enumerate(masses):
            tau += mass * unit[:, body]
        return tau

    def _efforts(self, model, kinematics, q):
        """(N, dof) gravity and payload efforts of ``model`` (its masses; the geometry
        of ``kinematics``) at ``q``."""
        unit, payload = self._unit_efforts(kinematics, q)
        return self._combine(unit, payload, model.masses)

    def _sized(self, design: Design, model: RobotModel, kinematics, q):
        """(design, model) with each joint's lightest actuator of its size that holds
        the efforts at ``q`` (module docstring); the strongest where none does."""
        actuators = list(design.actuators)
        if len(q):
            unit, payload = self._unit_efforts(kinematics, q)
            masses = model.masses.copy()
            scale = 1.0 - self.task.margin
            for k in reversed(range(len(actuators))):
                body = model.frame_index(2 * k, 'com')
                for name in variants(size_of(actuators[k])):
                    masses[body] = ACTUATORS[name].mass
                    tau = self._combine(unit[:, :, k:k + 1], payload[:, k:k + 1], masses)
                    if np.abs(tau).max() <= ACTUATORS[name].max_effort * scale:
                        actuators[k] = name
                        break
                else:
                    masses[body] = ACTUATORS[actuators[k]].mass
        else:
            actuators = [variants(size_of(a))[0] for a in actuators]
        if tuple(actuators) == design.actuators:
            return design, model
        design = design.with_actuators(actuators)
        return design, design.model()

    def _lighter(self, planner, k, q, ratios, joints, limits) -> None:
        """Other configurations at target ``k`` (IK from the Halton points of the
        joints' ranges), keeping the one of least effort ratio."""
        kinematics = planner.kinematics
        low, high = planner.position_limits[:, 0], planner.position_limits[:, 1]
        low = np.where(np.isfinite(low), low, -np.pi)
        high = np.where(np.isfinite(high), high, np.pi)
        for n in range(1, EFFORT_ATTEMPTS + 1):
            seed = low + (high - low) * halton_points(n, 1, primes(len(low)))[0]
            result = self.solve(planner, k, 1, seed)
            if not result.success:
                continue
            ratio, joint = effort_ratios(kinematics, result.positions[None],
                                         self.task.payload, limits)
            if ratio[0] < ratios[k]:
                q[k], ratios[k], joints[k] = result.positions, ratio[0], joint[0]
                if ratio[0] <= 1.0:
                    return
