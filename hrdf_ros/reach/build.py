"""Build a reach and payload map: :func:`reach_map`.

In: a :class:`~hrdf_ros.model.RobotModel`, a voxel edge (m), a number of tool directions,
an end effector, joint and effort limits. Out: a :class:`~hrdf_ros.reach.result.ReachMap`.

The method, after REACH (ROS-Industrial) and Reuleaux:

1. **Where to look.** ``samples`` random configurations within the limits (numpy's
   PCG64, seed 0: the same map every run) give end-effector positions; the lattice
   points ``k * voxel`` of the cells they fall in, and of those cells' 26 neighbours,
   are the centres (scikit-robot samples the same way, then stops there).
2. **Position.** Position-only IK at every centre, seeded with a sample from the
   centre's cell where one fell there, batched; then, as long as it finds more, a
   neighbour pass: each centre not yet reached that has a newly reached face neighbour
   is solved again from that neighbour's solution.
3. **Directions.** At every reached centre, IK with the ``'tip_axis'`` objective (the
   end effector's z axis along the direction, roll free) for every direction, seeded
   with the centre's position-only solution; then neighbour passes as in 2, per
   direction: the map is smooth where the arm is, and a pair the first try missed is
   found from its neighbour's solution (REACH's neighbour pass).
4. **Best configuration.** Of each centre's solved directions, the solution with the
   largest payload (:mod:`~hrdf_ros.reach.payload`); the position-only solution where
   none is solved. Its manipulability and payload are the map's.

Every IK call is one batch on the Kinematics' path (``threads`` on the compiled one),
capped at a number of Levenberg-Marquardt steps per target (restarts included), never a
timeout: the same map on a fast and on a busy machine. Two caps: the first tries of
steps 2 and 3 and their neighbour passes stop at :data:`.passes.SHORT_ITERATIONS`, where a
solve from a good seed has converged; then every pair not solved that has a solved face
neighbour (the edge of what is reached) is searched once with ``max_iterations``, its
restarts included, from that neighbour's solution, and the neighbour passes go on from
what that finds. Most pairs of a map are out of reach, and a pair out of reach uses its
whole cap: the full search only at the edge took 2.2 to 2.6 times less time than the
full search everywhere on HEBI's 7-DoF arms with the same solved pairs (to 0.01 %).

With ``avoid_collisions``, every solution of steps 2 and 3 is checked by the motion
planner's scene (:class:`~hrdf_ros.motion.scene.PlanningScene`: the links against each
other as MoveIt checks them, and against the collision objects), one batch per IK
batch; one in collision counts as not solved, so the neighbour passes look for another
from the neighbours' free solutions (REACH scores a pose only where its IK answer is
free of collision, in the same way). This needs the motion extra.
"""
from __future__ import annotations

import math
from typing import Callable, Optional, Sequence

import numpy as np

from .. import reproducible
from ..description.limits import DEFAULT_PRISMATIC_LIMIT
from ..kinematics import Kinematics
from ..kinematics.gravity import HEBI_GRAVITY
from ..kinematics.ik_request import joint_limit_array
from ..model import RobotModel
from .lattice import Lattice, cells_of, fibonacci_sphere, reach_cells, tool_rotations
from .passes import Passes
from .payload import payload as payload_of
from .payload import rated_efforts
from .result import ReachMap

#: Random configurations that find where the end effector goes (step 1).
DEFAULT_SAMPLES = 100_000
#: Levenberg-Marquardt steps per IK target of the full search (at the edge of what is
#: reached), restarts included: a seeded solve that converges takes 4-10 (measured on
#: A-2099-07); the rest of the cap goes to restarts.
DEFAULT_MAX_ITERATIONS = 100
#: Solutions per batch of payload and Jacobian evaluations (bounds the memory).
CHUNK = 65_536
#: The most (point, direction) pairs a map takes: their solutions are kept (8 bytes per
#: joint each, 0.9 GB for a 7-DoF arm at this bound) for the neighbour passes. A 7-DoF
#: kit's 5 cm map with 50 directions has 1.8 million.
MAX_PAIRS = 16_000_000


def _check_positive(name: str, value) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float, np.floating, np.integer)) \
            or not math.isfinite(value) or value <= 0:
        raise ValueError(f'{name} must be a finite number > 0, got {value!r}')
    return float(value)


def search_limits(model: RobotModel, joint_limits) -> np.ndarray:
    """(dof, 2) the limits the map samples and solves within: the given ones; a free
    revolute joint, a turn about 0 (its IK stays free: any 2 pi equivalent); a free
    prismatic joint, +-:data:`~hrdf_ros.description.limits.DEFAULT_PRISMATIC_LIMIT` (the
    URDF's limits)."""
    limits = joint_limit_array(joint_limits, model.joint_names())
    for k, index in enumerate(model.dof_elements):
        element = model.elements[index]
        prismatic = element.motion.startswith('t')
        for side, sign in ((0, -1.0), (1, 1.0)):
            if not np.isfinite(limits[k, side]) and prismatic:
                limits[k, side] = sign * DEFAULT_PRISMATIC_LIMIT
    return limits


def _sample_box(model: RobotModel, limits: np.ndarray) -> np.ndarray:
    """(dof, 2) the range samples are drawn from: the limits; a turn for a free revolute
    joint (pi / |motion scale| either side of 0, or beside its one bound)."""
    box = limits.copy()
    for k, index in enumerate(model.dof_elements):
        turn = 2.0 * math.pi / abs(model.elements[index].motion_scale)
        low, high = box[k]
        if not np.isfinite(low) and not np.isfinite(high):
            box[k] = (-0.5 * turn, 0.5 * turn)
        elif not np.isfinite(low):
            box[k, 0] = high - turn
        elif not np.isfinite(high):
            box[k, 1] = low + turn
    return box


def reach_map(model: RobotModel, *, voxel: float = 0.05, directions: int = 50,
              index: int = 0, joint_limits=None, threads: int = 1, effort_limits=None,
              samples: int = DEFAULT_SAMPLES, max_iterations: int = DEFAULT_MAX_ITERATIONS,
              kinematics: Optional[str] = 'auto', avoid_collisions: bool = False,
              collision_objects: Sequence = (),
              progress: Optional[Callable[[int, int], None]] = None) -> ReachMap:
    """Where an end effector reaches, in which tool directions, and the payload it holds
    there (see the module docstring for the method, :class:`ReachMap` for the fields).

    Args:
        model: the robot.
        voxel: m, the lattice spacing (> 0).
        directions: number of tool directions (a Fibonacci sphere).
        index: the end effector.
        joint_limits: position limits as :meth:`~hrdf_ros.kinematics.Kinematics.solve_ik`
            takes them ((dof, 2) or ``{joint: (lower, upper)}``); free joints as
            ``search_limits`` in this module says.
        threads: threads of the batched IK and evaluations (compiled path).
        effort_limits: (dof,) N m (N), or ``{joint: effort}``; default the actuators'
            rated efforts (:func:`~hrdf_ros.reach.payload.rated_efforts`). ``hrdf reach
            --hebi-config`` passes them lowered by the config's gains.
        samples: random configurations that find the workspace (step 1).
        max_iterations: Levenberg-Marquardt steps per IK target.
        kinematics: the evaluation path (``'auto'``: compiled where installed).
        avoid_collisions: count only configurations free of collision (module
            docstring): the links with each other, and with ``collision_objects``.
        collision_objects: :class:`~hrdf_ros.motion.objects.CollisionObject` values
            or mappings of their schema (``hrdf plan --collision-objects``'s YAML);
            only with ``avoid_collisions``.
        progress: called as ``progress(solves done, solves planned)`` after each batch.

    Returns:
        the :class:`~hrdf_ros.reach.result.ReachMap`.

    Raises:
        ValueError: a bad voxel, count, limit or effort limit, or a map of more than
            16 million (point, direction) pairs (``MAX_PAIRS`` in this module), a
            collision object that is wrong, or collision objects without
            ``avoid_collisions``.
        IndexError: no such end effector.
        ImportError: ``avoid_collisions`` without the motion extra.
    """
    voxel = _check_positive('voxel', voxel)
    directions_array = fibonacci_sphere(directions)
    for name, value in (('samples', samples), ('max_iterations', max_iterations),
                        ('threads', threads)):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
            raise ValueError(f'{name} must be an integer >= 1, got {value!r}')
    kin = Kinematics(model, kinematics=kinematics)
    chain = kin.end_effector_joints(index)
    names = tuple(model.joint_names())
    given = joint_limit_array(joint_limits, names)
    limits = search_limits(model, given)
    efforts = _efforts(model, names, effort_limits)
    scene = _scene(model, kinematics, avoid_collisions, collision_objects)
    builder = Passes(kin, index, limits, threads, int(max_iterations), progress, scene)

    # 1. where to look
    box = _sample_box(model, limits)
    rng = np.random.default_rng(0)
    q = np.repeat(np.clip(0.0, box[:, 0], box[:, 1])[None], samples, axis=0)
    q[:, chain] = rng.uniform(box[chain, 0], box[chain, 1], (samples, len(chain)))
    seen = kin.end_effector(q, index, threads=threads)[:, :3, 3]
    lattice = Lattice(reach_cells(seen, voxel))
    centers = lattice.cells * voxel
    m, n = len(centers), len(directions_array)
    if m * n > MAX_PAIRS:
        raise ValueError(f'{m} points {voxel:g} m apart x {n} directions is {m * n} IK '
                         f'problems, more than a map takes ({MAX_PAIRS}): use a larger '
                         'voxel or fewer directions')
    builder.total = m * (1 + n)

    # 2. position only
    seeds = np.repeat(q[:1], m, axis=0)
    rows = lattice.rows(cells_of(seen, voxel))
    seeds[rows[::-1]] = q[::-1]                # the first sample that fell in each cell
    position_solutions, reachable = builder.solve(centers, None, seeds)
    position_solutions = position_solutions[:, None, :].copy()
    reachable = reachable[:, None].copy()
    builder.spread(lattice.neighbours, position_solutions, reachable,
                   lambda r, c: (centers[r], None))
    reachable = reachable[:, 0]
    position_solutions = position_solutions[:, 0]

    # 3. directions
    builder.total = builder.done + int(reachable.sum()) * n
    rotations = tool_rotations(directions_array)
    solutions = np.repeat(position_solutions[:, None, :], n, axis=1)
    solved = np.zeros((m, n), bool)
    rows = np.nonzero(reachable)[0]
    pairs_rows = np.repeat(rows, n)
    pairs_columns = np.tile(np.arange(n), len(rows))
    found, ok = builder.solve(centers[pairs_rows], rotations[pairs_columns],
                              position_solutions[pairs_rows])
    solutions[pairs_rows, pairs_columns] = found
    solved[pairs_rows, pairs_columns] = ok
    builder.spread(lattice.neighbours, solutions, solved,
                   lambda r, c: (centers[r], rotations[c]))

    free = ~np.isfinite(given).any(axis=1)
    _wrap_free_revolute(model, free, solutions)
    _wrap_free_revolute(model, free, position_solutions)

    # 4. best configuration
    positions = np.full((m, kin.dof_count), np.nan)
    positions[reachable] = position_solutions[reachable]
    rows, columns = np.nonzero(solved)
    if len(rows):
        mass, _ = _payloads(kin, index, solutions[rows, columns], efforts, threads)
        ranked = np.lexsort((columns, -mass, rows))       # per row: heaviest, then first
        first = np.ones(len(ranked), bool)
        first[1:] = rows[ranked][1:] != rows[ranked][:-1]
        best = ranked[first]
        positions[rows[best]] = solutions[rows[best], columns[best]]
    manipulability = np.full(m, np.nan)
    payload = np.full(m, np.nan)
    binding = np.full(m, -1, dtype=np.int64)
    if reachable.any():
        at = positions[reachable]
        payload[reachable], binding[reachable] = _payloads(kin, index, at, efforts, threads)
        manipulability[reachable] = _manipulability(kin, index, at, chain, threads)
    return ReachMap(voxel=voxel, directions=directions_array, centers=centers,
                    reachable=reachable, solved=solved, reachability=solved.mean(axis=1),
                    positions=positions, manipulability=manipulability, payload=payload,
                    binding_joint=binding, joint_names=names, effort_limits=efforts,
                    end_effector=int(index), avoid_collisions=bool(avoid_collisions))


def _scene(model: RobotModel, kinematics, avoid_collisions, collision_objects):
    """The motion planner's scene of ``model`` with the objects, or None when the map
    ignores collisions."""
    if not isinstance(avoid_collisions, (bool, np.bool_)):
        raise ValueError(f'avoid_collisions must be True or False, got {avoid_collisions!r}')
    objects = list(collision_objects or ())
    if not avoid_collisions:
        if objects:
            raise ValueError('collision objects are checked only with avoid_collisions=True')
        return None
    from ..motion.planner import MotionPlanner      # the motion extra, only when asked
    return MotionPlanner(model, objects, kinematics=kinematics).scene


def _wrap_free_revolute(model: RobotModel, free: np.ndarray, q: np.ndarray) -> None:
    """In place: the positions (..., dof) of the revolute joints ``free`` (dof,) marks
    (no limits) to the 2 pi (per |motion scale|) equivalent in [-pi, pi) / |motion scale|:
    the same pose, within the range ``hrdf view``'s sliders and HEBI's tools show."""
    for k, index in enumerate(model.dof_elements):
        element = model.elements[index]
        if free[k] and not element.motion.startswith('t'):
            half = math.pi / abs(element.motion_scale)
            q[..., k] = np.mod(q[..., k] + half, 2.0 * half) - half


def _efforts(model: RobotModel, names, effort_limits) -> np.ndarray:
    """(dof,) effort limits: the rated ones, with the given ones over them."""
    efforts = rated_efforts(model)
    if effort_limits is None:
        return efforts
    if isinstance(effort_limits, dict):
        position = {name: k for k, name in enumerate(names)}
        for name, value in effort_limits.items():
            if name not in position:
                raise ValueError(f"effort limit for unknown joint '{name}' (joints: "
                                 f"{', '.join(names)})")
            efforts[position[name]] = _check_positive(f'the effort limit of {name}', value)
        return efforts
    given = np.asarray(effort_limits, dtype=float)
    if given.shape != efforts.shape or not np.all(np.isfinite(given)) or np.any(given <= 0):
        raise ValueError(f'effort_limits must be {len(names)} finite numbers > 0 (one per '
                         f'joint) or map joint names to them; got {effort_limits!r}')
    return given.copy()


def _payloads(kin: Kinematics, index: int, q: np.ndarray, efforts: np.ndarray,
              threads: int):
    """Payload (kg) and binding joint at each row of ``q``, in chunks."""
    mass = np.empty(len(q))
    binding = np.empty(len(q), dtype=np.int64)
    for start in range(0, len(q), CHUNK):
        part = np.ascontiguousarray(q[start:start + CHUNK])
        gravity = kin.gravity_efforts(part, HEBI_GRAVITY, threads=threads)
        jacobian = kin.end_effector_jacobian(part, index, threads=threads)
        mass[start:start + CHUNK], binding[start:start + CHUNK] = payload_of(
            gravity, jacobian[:, :3, :], efforts, HEBI_GRAVITY)
    return mass, binding


def _manipulability(kin: Kinematics, index: int, q: np.ndarray, chain: np.ndarray,
                    threads: int) -> np.ndarray:
    """Yoshikawa's measure at each row of ``q`` over the chain's columns."""
    jacobian = kin.end_effector_jacobian(np.ascontiguousarray(q), index,
                                         threads=threads)[:, :, chain]
    # reproducible products and determinant: the map's bytes do not follow the BLAS kernel
    if jacobian.shape[2] >= 6:
        gram = reproducible.matmul(jacobian, np.swapaxes(jacobian, 1, 2))
    else:
        gram = reproducible.matmul(np.swapaxes(jacobian, 1, 2), jacobian)
    return reproducible.gram_root_determinant(gram)
