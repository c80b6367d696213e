"""Helpers of the hrdf design tests: tasks made from an arm's own states, and hebi-py's
verdict on a design's configurations (the independent oracle: HEBI's FK, Jacobian, gravity
compensation efforts, rated efforts and masses)."""
import math

import numpy as np

from hrdf_ros.design import task
from hrdf_ros.design.evaluate import Evaluator
from hrdf_ros.kinematics.rotations import rotation_to_quaternion

#: HEBI's gravity (hebi-py's arm API): 9.81 m/s^2 along -z.
GRAVITY = np.array([0.0, 0.0, -9.81])


def free_states(model, count, seed, objects=()):
    """(count, dof) random states free of collision in the design evaluator's scene
    (shoulder raised 0.2-1.6 rad so that the arm stands above its mount); at most
    1000 draws per state (AssertionError: a scene where almost nothing is free)."""
    planner = Evaluator(task({'targets': [{'xyz': [0.3, 0.0, 0.3]}],
                              'collision_objects': list(objects)})).planner(model)
    rng = np.random.default_rng(seed)
    states = []
    for _ in range(1000 * count):
        if len(states) == count:
            break
        q = rng.uniform(-2.0, 2.0, model.dof_count)
        q[1] = rng.uniform(0.2, 1.6)
        if not planner.in_collision(q):
            states.append(q)
    assert len(states) == count, f'{len(states)} of {count} free states in 1000 draws each'
    return np.array(states)


def targets_at(kinematics, states, orientation):
    """The task file's targets at the end effector of ``states``: ``orientation`` is
    ``'tip_axis'``, ``'full'`` (as a quaternion) or ``'none'``."""
    targets = []
    for pose in kinematics.end_effector(states):
        target = {'xyz': pose[:3, 3].tolist()}
        if orientation == 'tip_axis':
            target['tip_axis'] = pose[:3, 2].tolist()
        elif orientation == 'full':
            target['quat'] = list(rotation_to_quaternion(pose[:3, :3]))
        targets.append(target)
    return targets


def hebi_verdict(path, job, configurations):
    """hebi-py on a written design at the configurations of a task's targets.

    Returns a dict: ``position`` (targets,) m and ``angle`` (targets,) rad from each
    target (the z axis for tip-axis targets, the rotation for full poses, 0 for
    position-only); ``ratios`` (targets, dof) |gravity compensation + m g J_v^T z| over
    ``max_efforts``; ``mass`` kg (the sum of hebi-py's masses).
    """
    import hebi
    robot = hebi.robot_model.import_from_hrdf(str(path))
    limits = np.asarray(robot.max_efforts)
    position, angle, ratios = [], [], []
    for target, q in zip(job.targets, configurations):
        pose = np.asarray(robot.get_end_effector(q))
        position.append(float(np.linalg.norm(pose[:3, 3] - target.position)))
        if target.orientation == 'tip_axis':
            angle.append(math.acos(min(1.0, float(pose[:3, 2] @ target.pose[:3, 2]))))
        elif target.orientation == 'full':
            relative = target.pose[:3, :3].T @ pose[:3, :3]
            angle.append(math.acos(max(-1.0, min(1.0, (np.trace(relative) - 1) / 2))))
        else:
            angle.append(0.0)
        linear = np.asarray(robot.get_jacobian_end_effector(q))[:3]
        tau = np.asarray(robot.get_grav_comp_efforts(q, GRAVITY)) \
            - job.payload * linear.T @ GRAVITY
        ratios.append(np.abs(tau) / (limits * (1.0 - job.margin)))
    return {'position': np.array(position), 'angle': np.array(angle),
            'ratios': np.array(ratios), 'mass': float(np.sum(robot.masses))}


def generated_task(line, count, orientation, seed, objects=(), gripper=False):
    """A task made from an arm that is not a kit (issue 47's acceptance): ``count``
    random collision-free states of the design ``line`` (:func:`~hrdf_ros.design.
    parse_design`'s text), its end effector there as targets (``orientation`` as
    :func:`targets_at`), the payload 0.9 of the least the arm holds over those states
    (its rated efforts), rounded down to 0.1 g.

    Returns:
        ``(design, task mapping, the arm's mass in kg)``.
    """
    from hrdf_ros import Kinematics
    from hrdf_ros.design import Design, parse_design
    from hrdf_ros.reach.payload import payload, rated_efforts
    design = parse_design(line)
    if gripper:
        design = Design(design.actuators, design.connectors, design.family.gripper)
    model = design.model()
    states = free_states(model, count, seed, objects)
    kinematics = Kinematics(model)
    held, _ = payload(kinematics.gravity_efforts(states, GRAVITY),
                      kinematics.end_effector_jacobian(states)[:, :3, :],
                      rated_efforts(model), GRAVITY)
    data = {'targets': targets_at(kinematics, states, orientation),
            'payload': math.floor(0.9 * float(held.min()) * 1e4) / 1e4,
            'collision_objects': list(objects)}
    if gripper:
        data['gripper'] = 'parallel'
    return design, data, float(model.masses.sum())


def mplib_with_boxes(model, folder, objects):
    """mplib's planner on ``hrdf moveit``'s URDF and SRDF of ``model`` (in ``folder``),
    with the boxes of a task's ``collision_objects`` (their positions; unturned) in its
    planning world: the collision oracle of the design tests."""
    import mplib
    from mplib.collision_detection import fcl
    from motion_helpers import Mplib
    oracle = Mplib(model, folder)
    for o in objects:
        assert o['type'] == 'box' and o['pose'].get('orientation', [0, 0, 0, 1])[:3] == \
            [0.0, 0.0, 0.0], o
        oracle.planner.planning_world.add_object(fcl.FCLObject(
            o['name'], mplib.Pose(p=o['pose']['position']),
            [fcl.CollisionObject(fcl.Box(*o['dimensions']))], [mplib.Pose()]))
    return oracle
