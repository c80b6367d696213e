"""Inverse kinematics of one end effector: :class:`InverseKinematics`, the part of
:class:`~.kinematics.Kinematics` that gives ``solve_ik`` and ``end_effector_joints``;
the request checked (:mod:`.ik_request`), then solved on the Kinematics' path.

In: the Kinematics, target poses of an end-effector frame, (4, 4) or (N, 4, 4), in the
reference frame (the frame :meth:`~.kinematics.Kinematics.end_effector` returns; m),
seeds (dof,) or (N, dof) (rad, or m for prismatic joints), the objective, joint limits,
tolerances, a timeout and an iteration cap. Out: an :class:`IkResult`, batched where the
target is. The method (Levenberg-Marquardt with joint limits and restarts) is
:mod:`.ik_solver`'s, run by numpy one target at a time, or by the compiled kernel of
:mod:`.compiled_ik` (numba, ``hrdf_ros[fast]``); the two agree to rounding.

Only the joints that move the end effector (its *chain*) are solved for; the others
keep their seed. The objective follows the chain's degrees of freedom unless given, as
HEBI's arm helpers choose theirs: 6 or more ``'full'`` pose, 5 ``'tip_axis'`` (the
position and the end effector's z axis), 4 or fewer ``'none'`` (the position only,
MoveIt's ``position_only_ik``).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Optional, Union

import numpy as np

from . import evaluate, ik_solver
from .frame_set import FrameSet
from .ik_request import check_seeds, check_targets, joint_limit_array, positive
from .ik_solver import IkProblem

#: The orientation objectives: the whole orientation, the z axis alone, none.
ORIENTATIONS = ('full', 'tip_axis', 'none')
_MODES = {'full': ik_solver.FULL, 'tip_axis': ik_solver.TIP_AXIS, 'none': ik_solver.NONE}
#: The iteration cap when none is given (the timeout ends the search first).
NO_ITERATION_CAP = 1 << 62


def default_orientation(chain_dof: int) -> str:
    """The objective of a chain of ``chain_dof`` joints: ``'full'`` for 6 or more,
    ``'tip_axis'`` for 5, ``'none'`` for 4 or fewer."""
    return 'full' if chain_dof >= 6 else 'tip_axis' if chain_dof == 5 else 'none'


@dataclass(frozen=True)
class IkResult:
    """What :meth:`~hrdf_ros.kinematics.Kinematics.solve_ik` found; every field is
    batched (a leading N axis) when the target was.

    Attributes:
        positions: (dof,) or (N, dof) joint positions, rad or m (the chain's joints
            solved, the others as seeded): the solution, or the best configuration found
            (the least weighted error) when ``success`` is False.
        success: True when ``positions`` reach the target within both tolerances.
        position_error: m, the distance between the end effector and the target.
        orientation_error: rad, the angle of the rotation between the end effector's
            orientation and the target's (``'full'``), or between their z axes
            (``'tip_axis'``); 0 for ``'none'``.
        iterations: Levenberg-Marquardt steps taken, restarts included.
        restarts: attempts started from a new configuration after the seed's stalled.
    """

    positions: np.ndarray
    success: Union[bool, np.ndarray]
    position_error: Union[float, np.ndarray]
    orientation_error: Union[float, np.ndarray]
    iterations: Union[int, np.ndarray]
    restarts: Union[int, np.ndarray]


class IkChain:
    """The constants of one end effector's IK, built once per Kinematics and index.

    Attributes:
        frame_set: the end effector's one-frame set; ``chain`` (m,) the dof index of
            each joint that moves it, parents first.
        prismatic: (m,) bool; period: (m,) 2 pi / |motion scale| for revolute joints,
            0 for prismatic ones.
        reach: m, the sum of the chain's link offsets and the end effector's offset
            (the range restarts draw a free prismatic joint from is +-reach).
        orientation_length: m per rad, the weight of the orientation error
            (:data:`~.ik_solver.ORIENTATION_WEIGHT` times the reach, at least
            :data:`~.ik_solver.MIN_ORIENTATION_LENGTH`).
        default_orientation: the objective by the chain's degrees of freedom.
    """

    def __init__(self, frame_set: FrameSet):
        self.frame_set = fs = frame_set
        self.chain = fs.joints.copy()
        self.prismatic = fs.prismatic.copy()
        self.period = np.where(self.prismatic, 0.0, 2.0 * math.pi / np.abs(fs.scale))
        # the first joint's fixed transform places the chain (base frame included)
        offsets = [f[:3, 3] for f in fs.fixed[1:]] + [fs.offsets[0][:3, 3]]
        self.reach = float(sum(np.linalg.norm(o) for o in offsets))
        self.orientation_length = max(ik_solver.ORIENTATION_WEIGHT * self.reach,
                                      ik_solver.MIN_ORIENTATION_LENGTH)
        self.default_orientation = default_orientation(len(self.chain))
        #: the prime base of each joint's Halton dimension (restarts)
        self.bases = ik_solver.primes(len(self.chain))
        #: the problem bounds without limits (see :func:`_bounds`)
        self.free_bounds = _bounds(self, np.full((fs.dof_count, 2), (-math.inf, math.inf)))


def _bounds(chain: IkChain, limits: np.ndarray) -> np.ndarray:
    """(5, m) rows of :class:`~.ik_solver.IkProblem`'s ``bounds`` for the chain's joints
    under ``limits`` (dof, 2): lower, upper, the range restarts draw from (the limits; a
    turn, 2 pi / |motion scale|, for a free revolute joint, centred on 0 or beside its
    one bound; 2 reach for a prismatic one), and the period of free revolute joints."""
    lower, upper = limits[chain.chain, 0], limits[chain.chain, 1]
    width = np.where(chain.prismatic, 2.0 * max(chain.reach, ik_solver.MIN_ORIENTATION_LENGTH),
                     chain.period)
    low = np.where(np.isfinite(lower), lower,
                   np.where(np.isfinite(upper), upper - width, -0.5 * width))
    high = np.where(np.isfinite(upper), upper, low + width)
    free = ~chain.prismatic & ~np.isfinite(lower) & ~np.isfinite(upper)
    return np.ascontiguousarray(np.stack([lower, upper, low, high,
                                          np.where(free, chain.period, 0.0)]))


def with_timeout(problem: IkProblem, timeout: float) -> IkProblem:
    """``problem`` with another ``timeout`` (s per target, > 0; ``math.inf``: none),
    unchecked: a copy in a microsecond (``dataclasses.replace`` takes ~15)."""
    return IkProblem(problem.frame_set, problem.chain, problem.bounds, problem.bases,
                     problem.mode, problem.position_tolerance, problem.orientation_tolerance,
                     problem.orientation_length, timeout, problem.max_iterations)


def _problem(chain: IkChain, orientation, bounds: np.ndarray, position_tolerance,
             orientation_tolerance, timeout, max_iterations) -> IkProblem:
    """The request's constants (checked)."""
    if orientation is None:
        orientation = chain.default_orientation
    mode = _MODES.get(orientation) if isinstance(orientation, str) else None
    if mode is None:
        raise ValueError(f"orientation must be one of {', '.join(ORIENTATIONS)}, "
                         f'got {orientation!r}')
    if timeout is None and max_iterations is None:
        raise ValueError('give a timeout, max_iterations or both (a search without either '
                         'would not end on an unreachable target)')
    timeout = math.inf if timeout is None else positive('timeout', timeout)
    if max_iterations is None:
        max_iterations = NO_ITERATION_CAP
    elif isinstance(max_iterations, bool) or not isinstance(max_iterations, (int, np.integer)) \
            or max_iterations < 0:
        raise ValueError(f'max_iterations must be an integer >= 0, got {max_iterations!r}')
    return IkProblem(chain.frame_set, chain.chain, bounds, chain.bases, mode,
                     positive('position_tolerance', position_tolerance),
                     positive('orientation_tolerance', orientation_tolerance),
                     chain.orientation_length, timeout, int(max_iterations))


class InverseKinematics:
    """The inverse kinematics of :class:`~hrdf_ros.kinematics.Kinematics` (a part of that
    class: uses its ``model``, one-frame sets and evaluation path)."""

    def end_effector_joints(self, index: int = 0) -> np.ndarray:
        """(m,) int, the degrees of freedom that move an end effector (indices into the
        positions, ascending): what :meth:`solve_ik` solves for. IndexError: no such
        end effector."""
        return self._ik_chain(index).chain.copy()

    def _ik_chain(self, index: int) -> IkChain:
        """The (cached) IK constants of end effector ``index`` (IndexError: none)."""
        chains = self.__dict__.setdefault('_ik_chains', {})
        chain = chains.get(index)
        if chain is None:
            chain = chains[index] = IkChain(self._frame_set('end_effector', index))
        return chain

    def solve_ik(self, target, seed=None, *, index: int = 0,
                 orientation: Optional[str] = None, joint_limits=None,
                 position_tolerance: float = 1e-5, orientation_tolerance: float = 1e-5,
                 timeout: Optional[float] = 0.005, max_iterations: Optional[int] = None,
                 threads: int = 1) -> IkResult:
        """Joint positions that put an end effector at a target pose (inverse kinematics).

        Levenberg-Marquardt with joint limits from the seed, random restarts when it
        stalls (:mod:`~hrdf_ros.kinematics.ik_solver`): a warm-started sequence follows
        a path without jumping branch. Only :meth:`end_effector_joints` move. Restarts
        follow a fixed sequence: with ``max_iterations`` instead of a timeout, the same
        answer on both paths (to 1e-9), alone or in a batch.

        Args:
            target: (4, 4) pose of the end-effector frame in the reference frame (the
                frame :meth:`~hrdf_ros.kinematics.Kinematics.end_effector` returns; m),
                or (N, 4, 4).
            seed: (dof,) or (N, dof) start (rad or m; default zeros), clipped into the
                limits.
            index: the end effector (as for
                :meth:`~hrdf_ros.kinematics.Kinematics.end_effector`).
            orientation: ``'full'``, ``'tip_axis'`` (position and z axis, HEBI's 5-DoF
                objective) or ``'none'`` (position only); None: by the number of
                :meth:`end_effector_joints`, 6+ full, 5 tip axis, 4- none.
            joint_limits: (dof, 2) lower/upper bounds, or a mapping of joint names
                (:meth:`~hrdf_ros.model.RobotModel.joint_names`) to (lower, upper) or to
                values with ``lower``/``upper`` (``hrdf --limits``); inf or None: free
                (prismatic joints too). A free revolute joint ends at the 2 pi
                equivalent nearest the seed.
            position_tolerance: m, on the distance to the target.
            orientation_tolerance: rad, on the angle of the orientation error.
            timeout: s, wall-clock cap per target (None: none).
            max_iterations: cap on the steps per target (None: none).
            threads: threads of a batch on the numba path (numpy ignores it).

        Returns:
            :class:`~hrdf_ros.kinematics.ik.IkResult`, batched where ``target`` is;
            ``success`` only within both tolerances, else the best found (an
            unreachable target is not an error).

        Raises:
            ValueError: a target not a finite rigid transform, a bad seed, orientation,
                joint name, limit, tolerance or timeout, or neither a timeout nor
                ``max_iterations``. IndexError: no such end effector.
        """
        threads = evaluate.check_threads(threads)
        problem = self.ik_problem(index, orientation=orientation, joint_limits=joint_limits,
                                  position_tolerance=position_tolerance,
                                  orientation_tolerance=orientation_tolerance,
                                  timeout=timeout, max_iterations=max_iterations)
        targets, single = check_targets(target)
        seeds = check_seeds(seed, len(targets), self.dof_count)
        result = self.solve_ik_problem(problem, targets, seeds, threads)
        if single:
            return IkResult(result.positions[0], bool(result.success[0]),
                            float(result.position_error[0]),
                            float(result.orientation_error[0]), int(result.iterations[0]),
                            int(result.restarts[0]))
        return result

    def ik_problem(self, index: int = 0, *, orientation: Optional[str] = None,
                   joint_limits=None, position_tolerance: float = 1e-5,
                   orientation_tolerance: float = 1e-5, timeout: Optional[float] = 0.005,
                   max_iterations: Optional[int] = None) -> IkProblem:
        """The checked constants of :meth:`solve_ik` requests (its arguments, same
        meaning), for :meth:`solve_ik_problem`: a caller that solves many targets under
        the same settings checks them once (:func:`with_timeout` gives it another
        timeout).

        Raises:
            ValueError, IndexError: as :meth:`solve_ik`.
        """
        chain = self._ik_chain(index)
        if joint_limits is None:
            bounds = chain.free_bounds
        else:
            bounds = _bounds(chain, joint_limit_array(joint_limits, self._dof_names()))
        return _problem(chain, orientation, bounds, position_tolerance,
                        orientation_tolerance, timeout, max_iterations)

    def solve_ik_problem(self, problem: IkProblem, targets: np.ndarray, seeds: np.ndarray,
                         threads: int = 1) -> IkResult:
        """:meth:`solve_ik` of checked input, batched: ``problem`` from
        :meth:`ik_problem`; ``targets`` (N, 4, 4) finite rigid transforms and ``seeds``
        (N, dof) finite, both float64 and C-contiguous (nothing is checked); ``threads``
        a positive int. Returns the batched :class:`IkResult`."""
        if self._resolve() is not None:
            from . import compiled_ik  # noqa: PLC0415 - numba only on the compiled path
            positions, errors, counts = compiled_ik.solve(problem, targets, seeds, threads)
        else:
            n = len(targets)
            positions, errors = np.empty(seeds.shape), np.empty((n, 2))
            counts = np.empty((n, 3), dtype=np.int64)
            for t in range(n):
                q, ok, position_error, orientation_error, iterations, restarts = \
                    ik_solver.solve_one(problem, targets[t], seeds[t])
                positions[t] = q
                errors[t] = position_error, orientation_error
                counts[t] = ok, iterations, restarts
        return IkResult(positions, counts[:, 0].astype(bool), errors[:, 0], errors[:, 1],
                        counts[:, 1], counts[:, 2])

    def _dof_names(self):
        """The model's joint names (:meth:`~hrdf_ros.model.RobotModel.joint_names`),
        computed once."""
        names = self.__dict__.get('_ik_names')
        if names is None:
            names = self.__dict__['_ik_names'] = tuple(self.model.joint_names())
        return names
