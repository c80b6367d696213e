"""What the motion tests share: the peers that check them (mplib's FCL on the URDF and
SRDF of ``hrdf moveit``, hebi-py's FK), random collision-free states, and the rules a
trajectory must keep (joint_trajectory_controller's, the limits as played)."""
import math
import os

import numpy as np

from hrdf_ros.export.moveit import moveit_package, write_moveit_package
from hrdf_ros.motion.trajectory import demand, playback

#: A bound that turns every continuous joint into a revolute one for mplib (it refuses
#: continuous joints) without clipping any state the tests use.
MPLIB_BOUND = 4 * math.pi
#: The shortest segment between two points of a trajectory, s (a microsecond: far from
#: rounding, where the quintic over it is still exact to ~1e-13).
MIN_SEGMENT = 1e-6


class Mplib:
    """mplib's collision check of a robot: the URDF of its MoveIt package with position
    limits on every joint (mplib refuses continuous ones), the SRDF of the package
    without them (the planner's disabled pairs: sampling other limits would draw other
    states, and could disable another rarely colliding pair)."""

    def __init__(self, model, folder, gripper=0.0):
        """``gripper``: the parallel grippers' finger joint value in every state (rad;
        0 open), their mimic joints set by their rules (mplib has no mimic joints)."""
        import mplib
        names = model.joint_names()
        limits = {name: [-MPLIB_BOUND, MPLIB_BOUND] for name in names}
        bounded = moveit_package(model, 'robot', limits=limits)   # the planner's meshes
        write_moveit_package(bounded, os.path.join(str(folder), 'bounded'))
        plain = moveit_package(model, 'robot')
        write_moveit_package(plain, os.path.join(str(folder), 'plain'))
        self.planner = mplib.Planner(
            urdf=os.path.join(str(folder), 'bounded', 'config', 'robot.urdf'),
            srdf=os.path.join(str(folder), 'plain', 'config', 'robot.srdf'),
            move_group=bounded.groups[0].tip)                      # a link
        self.joints = list(self.planner.user_joint_names)
        self.places = [(k, names.index(j)) for k, j in enumerate(self.joints) if j in names]
        from urdf_parser_py.urdf import URDF
        with open(os.path.join(str(folder), 'plain', 'config', 'robot.urdf'), 'rb') as handle:
            urdf = URDF.from_xml_string(handle.read())
        mimics = {j.name: j.mimic for j in urdf.joints if j.mimic is not None}
        fingers = {m.joint for m in mimics.values()}    # what the mimic joints follow
        self._fixed = np.zeros(len(self.joints))
        for k, name in enumerate(self.joints):
            if name in fingers:
                self._fixed[k] = gripper
            elif name in mimics:
                rule = mimics[name]
                self._fixed[k] = (rule.multiplier if rule.multiplier is not None else 1.0) \
                    * gripper + (rule.offset or 0.0)

    def state(self, q):
        """mplib's full state of (dof,) model positions (the grippers as constructed)."""
        full = self._fixed.copy()
        for k, column in self.places:
            full[k] = q[column]
        return full

    def collides(self, q) -> bool:
        """The links with each other, or with an object added to mplib's planning world
        (none unless a test adds one)."""
        state = self.state(q)
        return bool(self.planner.check_for_self_collision(state)
                    or self.planner.check_for_env_collision(state))


def free_states(planner, count, rng, width=math.pi):
    """``count`` random states in [-width, width] that the planner finds free."""
    out = []
    while len(out) < count:
        q = rng.uniform(-width, width, planner.model.dof_count)
        low, high = planner.position_limits[:, 0], planner.position_limits[:, 1]
        q = np.clip(q, low, high)
        if not planner.in_collision(q):
            out.append(q)
    return np.array(out)


def hebi_fk(hebi, q):
    """(4, 4) hebi-py's end-effector frame at (dof,) q."""
    return np.asarray(hebi.get_forward_kinematics_mat('EndEffector', q))[0].reshape(4, 4)


def hebi_follows_line(hebi, start, direction, steps=100):
    """True when hebi-py's IK follows the end effector's straight line from its pose at
    ``start`` by ``direction`` (3,) m, orientation kept, in ``steps`` steps, each seeded
    with the last, no joint moving more than 0.05 rad a step and each step reached
    within 1e-4 m by hebi-py's FK."""
    from hebi.robot_model import endeffector_position_objective, endeffector_so3_objective
    pose = hebi_fk(hebi, start)
    q = start
    for s in np.linspace(1.0 / steps, 1.0, steps):
        step = np.asarray(hebi.solve_inverse_kinematics(
            q, endeffector_position_objective(pose[:3, 3] + s * direction),
            endeffector_so3_objective(pose[:3, :3])))
        reached = hebi_fk(hebi, step)
        if np.abs(step - q).max() > 0.05 or \
                np.linalg.norm(reached[:3, 3] - pose[:3, 3] - s * direction) > 1e-4:
            return False
        q = step
    return True


def distance_from_line(hebi, states, pose, direction):
    """(m, rad): the farthest that hebi-py's end effector, at the (K, dof) ``states`` and
    the midpoints between them, is from the segment from ``pose``'s position along
    ``direction`` (3,), and from ``pose``'s orientation."""
    states = np.asarray(states)
    off_line = off_angle = 0.0
    for q in np.concatenate([states, (states[1:] + states[:-1]) / 2]):
        reached = hebi_fk(hebi, q)
        offset = reached[:3, 3] - pose[:3, 3]
        along = np.clip(offset @ direction / (direction @ direction), 0.0, 1.0)
        off_line = max(off_line, float(np.linalg.norm(offset - along * direction)))
        cosine = (np.trace(reached[:3, :3].T @ pose[:3, :3]) - 1) / 2
        off_angle = max(off_angle, math.acos(min(1.0, cosine)))
    return off_line, off_angle


def played_states(trajectory, full, columns, ratios, rate=1000.0):
    """(M, dof) the whole states of a trajectory as joint_trajectory_controller plays it,
    sampled at ``rate`` Hz: the trajectory's joints (``columns`` of a state, URDF values
    times the gear ``ratios``) as played, the others at their values in ``full``."""
    _, played = playback(trajectory, rate)
    states = np.tile(np.asarray(full, dtype=float), (len(played), 1))
    states[:, columns] = played * np.asarray(ratios)[columns]
    return states


def continuous_joints(planner):
    """(dof,) bool: the revolute joints without limits (URDF continuous): angles."""
    model = planner.model
    revolute = np.array([model.elements[e].motion[0] == 'r' for e in model.dof_elements])
    return revolute & ~np.isfinite(planner.position_limits).any(axis=1)


def check_trajectory(trajectory, start, goal, planner, velocity_scaling=1.0,
                     acceleration_scaling=1.0):
    """joint_trajectory_controller's rules and the limits as played (1 kHz, 0.1 %)."""
    columns = [planner.joint_names.index(j) for j in trajectory.joint_names]
    times = trajectory.time_from_start
    # strictly increasing, and no segment so short that the controller's quintic over it
    # (coefficients divided by its duration to the fifth power) loses its precision
    assert times[0] == 0.0 and np.min(np.diff(times), initial=1.0) >= MIN_SEGMENT, \
        np.min(np.diff(times))
    k, n = trajectory.positions.shape
    assert trajectory.velocities.shape == trajectory.accelerations.shape == (k, n)
    assert n == len(trajectory.joint_names)
    assert np.all(trajectory.velocities[-1] == 0.0)
    assert np.all(trajectory.accelerations[-1] == 0.0)
    ratios = np.array([float(planner.model.elements[e].gear_ratio)
                       for e in planner.model.dof_elements])
    np.testing.assert_allclose(trajectory.positions[0], (start / ratios)[columns], atol=1e-6)
    # the goal; an angle (a continuous joint) to within whole turns
    miss = trajectory.positions[-1] - (np.asarray(goal) / ratios)[columns]
    turns = np.where(continuous_joints(planner)[columns], 2 * math.pi / ratios[columns], np.inf)
    miss = np.where(np.isfinite(turns), miss - turns * np.round(miss / turns), miss)
    np.testing.assert_allclose(miss, 0.0, atol=1e-6)
    ratio = demand(trajectory, planner.velocity_limits[columns] * velocity_scaling,
                   planner.acceleration_limits[columns] * acceleration_scaling)
    assert ratio <= 1.001, ratio
    return playback(trajectory, 1000.0)


def python_fcl_clearance(planner, q, links=None) -> float:
    """m, the smallest distance between the scene's checked pairs of primitive shapes
    (boxes, cylinders, spheres) at q by python-fcl (FCL's own GJK, another build than
    mplib's and Pinocchio's: a third opinion), the shapes placed where Pinocchio places
    them; ``links``: only pairs between these two URDF links. ``inf`` where no such pair
    is made of primitives (a mesh: no opinion)."""
    return min(python_fcl_pair_distances(planner, q, links).values(), default=math.inf)


def python_fcl_pair_distances(planner, q, links=None) -> dict:
    """{(URDF link, URDF link): m}: python-fcl's distance of each checked pair of the
    scene made of primitive shapes at q (the smallest over the pair's shapes); ``links``:
    only that pair. See :func:`python_fcl_clearance`."""
    import fcl
    import pinocchio as pin
    scene = planner.scene
    robot, model, data = scene._robot, scene._geometry_model, scene._geometry_data
    pin.updateGeometryPlacements(robot.model, scene._data, model, data,
                                 robot.configuration(q))

    def link(k):        # the scene names each shape <URDF link>#<index> (scene_geometry)
        return model.geometryObjects[k].name.rsplit('#', 1)[0]

    def solid(k):
        geometry, placed = model.geometryObjects[k].geometry, data.oMg[k]
        kind = type(geometry).__name__
        if kind == 'Box':
            shape = fcl.Box(*(2 * geometry.halfSide))
        elif kind == 'Cylinder':
            shape = fcl.Cylinder(geometry.radius, 2 * geometry.halfLength)
        elif kind == 'Sphere':
            shape = fcl.Sphere(geometry.radius)
        else:
            return None
        return fcl.CollisionObject(shape, fcl.Transform(placed.rotation, placed.translation))
    distances = {}
    for pair in model.collisionPairs:
        key = (link(pair.first), link(pair.second))
        if links is not None and set(key) != set(links):
            continue
        a, b = solid(pair.first), solid(pair.second)
        if a is not None and b is not None:
            d = fcl.distance(a, b, fcl.DistanceRequest(), fcl.DistanceResult())
            distances[key] = min(d, distances.get(key, math.inf))
    return distances
