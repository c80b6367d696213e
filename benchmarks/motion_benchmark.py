"""Motion benchmark: hrdf_ros.motion against mplib (OMPL RRT-Connect + FCL + TOPP-RA, in
C++) and TRAC-IK (pytracik), on the same states in one run.

Per robot (every kit with a gripper or 6+ DoF, the bundled arm, the test's double-shoulder
arms with grippers (test/data/arms), ``--real`` real HEBI files hebi-py loads; a robot
with a gripper twice, its fingers open and closed, for the collision checks and IK):

* **Collision checks**: ``--states`` random states; our verdicts against mplib's (on the
  URDF and SRDF of ``hrdf moveit``: test/motion_helpers.py), and the time per state: ours
  one by one (``in_collision``), ours in batches of 50 close states (the states of a
  motion), mplib's ``check_for_self_collision``.
* **Collision-free IK**: ``--targets`` targets, hebi-py's end effector at random states
  mplib finds free; ours (``MotionPlanner.solve_ik``, the compiled path, its defaults:
  5 ms, after the planner's warm-up) from the zero seed; TRAC-IK (Speed, 5 ms, 1e-5; no
  collision checks) from the zero seed, the two interleaved target by target. A success
  of ours counts when mplib finds it free and hebi-py's FK puts the end effector within
  2e-5 m and rad of the target.
* **Joint motions**: ``--pairs`` pairs of random states mplib finds free (in
  [-2.5, 2.5]); ours (``plan``: its counts, the default 5 s cap) and mplib's
  (``plan_qpos``, 1 s). A plan counts when its trajectory, played as
  joint_trajectory_controller plays it at ``--rate`` Hz (10 kHz), is free in mplib's
  check at every sample (ours; a plan of ours that collides there is counted and named
  apart: ``collided``, which must be 0), or its samples joined by straight lines are
  free at every 5 mm of link motion (mplib's: its own TOPP-RA samples). A contact
  mplib reports that python-fcl (on the pairs it names) and Coal (on every pair) both
  find 0.1 mm apart or more is disproven (mplib 0.2.1's cylinder-cylinder defect), for
  either planner's plans, and counted apart (``mplib false contacts``); mplib's "Success"
  is reported as claimed and as valid. The time to a valid plan (ours where ours is
  valid, mplib's where its is), on the pairs both plan validly, and ours where neither
  does (no collision-free path: ours until its count runs out). The certified checks
  of ours during the plans: pieces proven or refused per second, and the share proven at
  once against those cut. ``--busy N`` runs N busy loops beside it all (both cores
  busy: the same plans, slower). Ours also: the
  limits as played (0.1 %), for straight lines the duration against the closed form
  (1 %), and on plans of 2 or more segments the duration against stopping at every
  corner (the same path, ``hrdf_ros.motion.timing``'s polyline) and against mplib's
  TOPP-RA on the same corners (its spline through them, with our limits).
* **Cartesian paths** (6+ DoF chains): ``--lines`` 10 cm lines from random free states
  that hebi-py's IK follows in 1 mm steps; the share ``cartesian_path`` follows whole,
  the farthest its states and midpoints are from the line (hebi-py's FK), its time, the
  limits as played.

Prints a table and the targets with PASS/FAIL. Run with ``make bench`` or
``python benchmarks/motion_benchmark.py [--robots A-2085-06 ...] [--pairs N]``.
"""
from __future__ import annotations

import argparse
import glob
import hashlib
import json
import math
import os
import sys
import tempfile
import time

for _var in ('OPENBLAS_NUM_THREADS', 'OMP_NUM_THREADS', 'MKL_NUM_THREADS'):
    os.environ.setdefault(_var, '1')

import numpy as np  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(REPO, 'test'))

from hrdf_ros import HrdfError, Kinematics, load, to_urdf  # noqa: E402
from hrdf_ros.description.frame_tree import build_frame_tree  # noqa: E402
from hrdf_ros.kinematics.ik import default_orientation  # noqa: E402
from hrdf_ros.kinematics.rotations import rotation_to_quaternion  # noqa: E402
from hrdf_ros.kinematics.gripper import GRIPPER_UPPER  # noqa: E402
from hrdf_ros.motion import MotionPlanner  # noqa: E402
from hrdf_ros.motion.warm_up import warm_up  # noqa: E402
from hrdf_ros.motion.resolution import interpolate, interpolation_counts  # noqa: E402
from hrdf_ros.motion.trajectory import demand, playback  # noqa: E402
from motion_helpers import (Mplib, distance_from_line, hebi_fk,  # noqa: E402
                            hebi_follows_line, python_fcl_clearance)

SHARED = os.path.normpath(os.path.join(REPO, '..', 'shared', 'hrdf'))
ARMS = os.path.join(REPO, 'test', 'data', 'arms')


def robots(names, real_count):
    """(label, path) of every kit with 5+ DoF or a gripper, the bundled arm, the test's
    arms, and the real HEBI files whose first end effector 5+ joints move (flat files and
    trees; ``real_count`` of them, None: all)."""
    found = []
    for path in sorted(glob.glob(os.path.join(SHARED, 'kits', '*.hrdf'))):
        model = load(path)
        name = os.path.splitext(os.path.basename(path))[0]
        if name.endswith('G') or model.dof_count >= 5:
            found.append((name, path))
    found.append(('bundled', os.path.join(REPO, 'config', 'x_series_arm_6dof.hrdf')))
    for path in sorted(glob.glob(os.path.join(ARMS, '*.hrdf'))):
        found.append(('test arm: ' + os.path.splitext(os.path.basename(path))[0], path))
    real = []
    files = sorted(glob.glob(os.path.join(SHARED, 'real', 'flat', '*.hrdf'))) + sorted(
        glob.glob(os.path.join(SHARED, 'real', 'trees', '**', '*.hrdf'), recursive=True))
    for path in files:
        try:
            model = load(path)
        except HrdfError:
            continue
        if model.frame_count('end_effector') and \
                len(Kinematics(model).end_effector_joints(0)) >= 5:
            real.append(('real: ' + os.path.basename(path).split('__')[-1], path))
    found += real if real_count is None else real[:real_count]
    if names:
        found = [(n, p) for n, p in found if any(k in n for k in names)]
    return found


def within(reached, target, orientation):
    """The pose reached within 2e-5 m and rad of the target, in the objective the chain
    gives (full, tip axis or position only)."""
    if orientation == 'full':
        angle = 2.0 * math.asin(min(np.linalg.norm(reached[:3, :3] - target[:3, :3])
                                    / (2.0 * math.sqrt(2.0)), 1.0))
    elif orientation == 'tip_axis':
        angle = math.acos(max(-1.0, min(1.0, float(reached[:3, 2] @ target[:3, 2]))))
    else:
        angle = 0.0
    return np.linalg.norm(reached[:3, 3] - target[:3, 3]) <= 2e-5 and angle <= 2e-5


#: m: a contact mplib reports is disproven when python-fcl (on the pairs mplib names) and
#: Pinocchio's Coal (on every checked pair) both find the shapes at least this far apart:
#: a hundred times GJK's tolerances (mplib 0.2.1's FCL calls cylinders 1.7 mm apart
#: touching: test_consumers_motion.py).
DISPROVEN = 1e-4


def _mplib_pairs(mplib, q):
    found = mplib.planner.check_for_self_collision(mplib.state(q)) + \
        mplib.planner.check_for_env_collision(mplib.state(q))
    return [(c.link_name1, c.link_name2) for c in found]


def _collision_detail(planner, mplib, q) -> str:
    """What mplib finds in collision at ``q`` and what our scene and python-fcl say."""
    pairs = _mplib_pairs(mplib, q)
    named = ', '.join(f'{a} - {b} (python-fcl {python_fcl_clearance(planner, q, (a, b)):.2e} m)'
                      for a, b in pairs[:3])
    ours = planner.scene.colliding_pairs(q)
    nearest = float(np.min(planner.scene.distances(q)))
    return f'mplib: {named}; ours: {sorted(ours)[:3]}, nearest {nearest:.2e} m; q {q.tolist()}'


def _disproven(planner, mplib, q) -> bool:
    """mplib calls ``q`` colliding, and python-fcl on each pair it names and Coal on every
    checked pair find the shapes DISPROVEN or more apart (a mesh gives python-fcl no
    opinion: not disproven)."""
    pairs = _mplib_pairs(mplib, q)
    return bool(pairs) and float(np.min(planner.scene.distances(q))) >= DISPROVEN and all(
        DISPROVEN <= python_fcl_clearance(planner, q, pair) < math.inf for pair in pairs)


def mplib_contacts(planner, mplib, states):
    """(first state mplib calls colliding that is not disproven or None, the states it
    calls colliding that are disproven, up to that one)."""
    disproven = []
    for k, q in enumerate(states):
        if mplib.collides(q):
            if not _disproven(planner, mplib, q):
                return k, disproven
            disproven.append(k)
    return None, disproven


def checks(planner, mplib, count, rng):
    states = rng.uniform(-math.pi, math.pi, (count, planner.model.dof_count))
    for q in states[:20]:                      # compile or load the kernels, warm up
        planner.in_collision(q)
        mplib.collides(q)
    planner.scene.free(states[:50])
    t = time.perf_counter()
    ours = np.array([planner.in_collision(q) for q in states])
    single = (time.perf_counter() - t) / count
    segments = [np.linspace(q, q + rng.uniform(-0.1, 0.1, q.shape), 50) for q in states[:40]]
    t = time.perf_counter()
    for segment in segments:
        planner.scene.free(segment)
    batch = (time.perf_counter() - t) / (50 * len(segments))
    t = time.perf_counter()
    theirs = np.array([mplib.collides(q) for q in states])
    peer = (time.perf_counter() - t) / count
    return {'check us': single * 1e6, 'batch us': batch * 1e6, 'mplib us': peer * 1e6,
            'disagree': int(np.count_nonzero(ours != theirs))}


def collision_free_ik(planner, mplib, hebi, model, path, count, rng):
    tree = build_frame_tree(model, gripper_joints=False)
    tracik = None
    chain = planner.kinematics.end_effector_joints(0)
    revolute = all(model.elements[model.dof_elements[k]].motion[0] == 'r' for k in chain)
    if len(chain) >= 6 and revolute:
        import pytracik
        tracik = pytracik.TRAC_IK('base_link', tree.end_effector_links[0],
                                  to_urdf(model, tree=tree, exact_masses=True, geometry=False),
                                  0.005, 1e-5, pytracik.SolveType.Speed)
    states = []
    while len(states) < count:
        q = rng.uniform(-math.pi, math.pi, model.dof_count)
        if not mplib.collides(q):
            states.append(q)
    targets = [hebi_fk(hebi, q) for q in states]
    warm_up(planner)                             # as a server does before its first request
    planner.solve_ik(targets[0])
    orientation = default_orientation(len(chain))
    solved = ours_time = peer_time = peer_solved = 0
    for target in targets:
        t = time.perf_counter()
        result = planner.solve_ik(target)
        ours_time += time.perf_counter() - t
        if result.success and not mplib.collides(result.positions) and \
                within(hebi_fk(hebi, result.positions), target, orientation):
            solved += 1
        if tracik is not None:
            x, y, z, w = rotation_to_quaternion(target[:3, :3])
            t = time.perf_counter()
            answer = pytracik.ik(tracik, np.zeros(len(chain)), *target[:3, 3], x, y, z, w)
            peer_time += time.perf_counter() - t
            peer_solved += answer[0] >= 0
    return {'ik free %': 100 * solved / count, 'ik us': 1e6 * ours_time / count,
            'trac-ik us': 1e6 * peer_time / count if tracik else float('nan'),
            'trac-ik %': 100 * peer_solved / count if tracik else float('nan')}


def cartesian(planner, hebi, count, rng):
    """10 cm lines from free states that hebi-py's IK follows in 1 mm steps (each seeded
    with the last, no joint step over 0.05 rad), up to ``count`` of them (6+ DoF chains):
    how many ``cartesian_path`` follows whole (no collision checks, as hebi-py's), the
    farthest its states and midpoints are from the line by hebi-py's FK, its mean time,
    and the limits as its trajectories play."""
    if len(planner.kinematics.end_effector_joints(0)) < 6:
        return {}
    tried = followed = 0
    elapsed = off_line = off_angle = worst_limits = 0.0
    for _ in range(20 * count):
        if tried == count:
            break
        start = rng.uniform(-1.5, 1.5, planner.model.dof_count)
        if planner.in_collision(start):
            continue
        pose = hebi_fk(hebi, start)
        direction = rng.normal(size=3)
        direction *= 0.1 / np.linalg.norm(direction)
        if hebi_follows_line(hebi, start, direction):
            tried += 1
            goal = pose.copy()
            goal[:3, 3] += direction
            t = time.perf_counter()
            plan = planner.cartesian_path(start, [goal], avoid_collisions=False)
            elapsed += time.perf_counter() - t
            followed += plan.fraction == 1.0
            line, angle = distance_from_line(hebi, plan.path, pose, direction)
            off_line, off_angle = max(off_line, line), max(off_angle, angle)
            if plan.trajectory is not None:
                columns = [planner.joint_names.index(j) for j in plan.trajectory.joint_names]
                worst_limits = max(worst_limits, demand(
                    plan.trajectory, planner.velocity_limits[columns],
                    planner.acceleration_limits[columns]))
    return {'lines tried': tried, 'followed %': 100 * followed / max(tried, 1),
            'off line mm': 1e3 * off_line, 'off rad': off_angle,
            'cartesian s': elapsed / max(tried, 1), 'cartesian limits': worst_limits}


def mplib_topp_duration(planner, mplib, path):
    """mplib's TOPP-RA (a spline through the path's corners) of a (K, dof) path with our
    velocity and acceleration limits, s."""
    names = [mplib.joints[k] for k in mplib.planner.move_group_joint_indices]
    columns = [planner.joint_names.index(n) for n in names]
    ratios = planner._ratios[columns]
    mplib.planner.joint_vel_limits = planner.velocity_limits[columns]
    mplib.planner.joint_acc_limits = planner.acceleration_limits[columns]
    return float(mplib.planner.TOPP(path[:, columns] / ratios, step=0.01)[-1])


def motions(planner, mplib, count, rng, rate):
    arms = planner._arms
    pairs = []
    while len(pairs) < count:
        q = rng.uniform(-2.5, 2.5, (2, planner.model.dof_count))
        if not mplib.collides(q[0]) and not mplib.collides(q[1]):
            pairs.append(q)
    warm_up(planner)
    counts_before = planner.scene.proof_counts
    collided = []
    false_contacts = []              # mplib's contacts that are disproven
    ours_ok = ours_planned = peer_claimed = peer_ok = lines = 0
    ours_time = peer_time = 0.0
    both = []                              # (ours s, mplib s) where both are valid
    ours_valid_times, peer_valid_times, neither_times = [], [], []
    corners = []                           # (ours s, stopping at corners s, mplib TOPP s)
    blocked, reasons, unproven = {}, {}, []
    worst_limits = worst_line = 0.0
    limits = planner._scaled_limits(1.0, 1.0)
    planned = []
    for start, goal in pairs:
        t = time.perf_counter()
        plan = planner.plan(start, goal)
        ours = time.perf_counter() - t
        ours_time += ours
        planned.append((start, goal, plan, ours))
    counts = {k: v - counts_before[k] for k, v in planner.scene.proof_counts.items()}
    digest = hashlib.sha256()            # every plan's trajectory, its bytes: alone or busy
    for _, _, plan, _ in planned:
        digest.update(json.dumps(plan.trajectory.to_dict() if plan.success else
                                 plan.message).encode())
    for start, goal, plan, ours in planned:
        valid = False
        if plan.success:
            ours_planned += 1
            trajectory = plan.trajectory
            _, played = playback(trajectory, rate)
            columns = [planner.joint_names.index(j) for j in trajectory.joint_names]
            full = np.tile(start, (len(played), 1))
            full[:, columns] = played * planner._ratios[columns]
            hit, disproven = mplib_contacts(planner, mplib, full)
            if disproven:
                false_contacts.append(f'{len(disproven)} samples from t = '
                                      f'{disproven[0] / rate:.4f} s '
                                      f'({_collision_detail(planner, mplib, full[disproven[0]])})')
            if hit is None:
                ours_ok += 1
                valid = True
                ours_valid_times.append(ours)
            else:
                collided.append(f't = {hit / rate:.4f} s of {trajectory.duration:.3f} s'
                                f' ({_collision_detail(planner, mplib, full[hit])})')
            worst_limits = max(worst_limits, demand(trajectory,
                                                    planner.velocity_limits[columns],
                                                    planner.acceleration_limits[columns]))
            if len(plan.path) == 2:
                lines += 1
                d = np.abs(plan.path[-1] - start)     # a line, maybe to the goal's other turn
                v = np.min(planner.velocity_limits / d)
                a = np.min(planner.acceleration_limits / d)
                optimal = 2 * math.sqrt(1 / a) if v * v / a >= 1 else 1 / v + v / a
                worst_line = max(worst_line, trajectory.duration / optimal - 1)
            else:
                corners.append((trajectory.duration,
                                planner._timed(plan.path, False, limits).duration,
                                mplib_topp_duration(planner, mplib, plan.path)))
        elif plan.error_code == -1 and 'blocked by' in plan.message:
            pair = plan.message.split('blocked by ')[1].split(' (')[0]
            blocked[pair] = blocked.get(pair, 0) + 1
        if not plan.success:
            why = plan.message.split(';')[0]
            reasons[why] = reasons.get(why, 0) + 1
            if 'proven free as played' in why:
                unproven.append((start, goal))
        t = time.perf_counter()
        result = mplib.planner.plan_qpos([mplib.state(goal)], mplib.state(start),
                                         planning_time=1.0)
        peer = time.perf_counter() - t
        peer_time += peer
        peer_valid = False
        if result['status'] == 'Success':
            peer_claimed += 1
            # its samples (every time step) joined as straight lines, checked every 5 mm
            samples = np.asarray(result['position'])
            full = np.repeat(start[None], len(samples), axis=0)
            if samples.shape[1] == len(mplib.joints):
                places = mplib.places
            else:       # the move group's joints only (a robot with others: Rosie)
                names = planner.model.joint_names()
                group = [mplib.joints[j] for j in mplib.planner.move_group_joint_indices]
                places = [(k, names.index(j)) for k, j in enumerate(group) if j in names]
            for k, column in places:
                full[:, column] = samples[:, k]
            dense = [interpolate(a, b, interpolation_counts(a[None], b[None], arms)[0])
                     for a, b in zip(full[:-1], full[1:])]
            states = np.concatenate(dense) if dense else full
            peer_valid = mplib_contacts(planner, mplib, states)[0] is None
            peer_ok += peer_valid
            if peer_valid:
                peer_valid_times.append(peer)
            if valid and peer_valid:
                both.append((ours, peer))
        if not valid and not peer_valid:
            neither_times.append(ours)
    both = np.array(both).reshape(-1, 2)
    corners = np.array(corners).reshape(-1, 3)
    ratio = corners[:, 0] / corners[:, 1] if len(corners) else np.full(1, np.nan)
    top = max(blocked, key=blocked.get) if blocked else '-'
    return {'corner ratios': ratio[np.isfinite(ratio)],
            'planned': ours_planned, 'plans': ours_ok, 'mplib claimed': peer_claimed,
            'mplib valid': peer_ok,
            'plan s': ours_time / count, 'mplib s': peer_time / count,
            'to valid s': float(np.mean(ours_valid_times)) if ours_valid_times else math.nan,
            'mplib to valid s': float(np.mean(peer_valid_times)) if peer_valid_times
            else math.nan,
            'both valid': len(both), 'plan s (both)': float(both[:, 0].mean()),
            'mplib s (both)': float(both[:, 1].mean()),
            'no path': len(neither_times),
            'no path s': float(np.mean(neither_times)) if neither_times else math.nan,
            'blocked most': f'{top} ({blocked.get(top, 0)})', 'lines': lines,
            'multi-segment': len(corners), 'corners median': float(np.median(ratio)),
            'corners max': float(np.max(ratio)),
            'vs mplib TOPP median': float(np.median(corners[:, 0] / corners[:, 2]))
            if len(corners) else math.nan,
            'limits as played': worst_limits, 'line excess %': 100 * worst_line,
            'collided': len(collided), 'collided at': '; '.join(collided[:3]),
            'mplib false contacts': len(false_contacts),
            'false contacts at': '; '.join(false_contacts[:3]),
            'plans sha256': digest.hexdigest()[:16],
            'why not': '; '.join(f'{n} x {why}' for why, n in sorted(reasons.items())),
            'proofs per s': counts['pieces'] / max(counts['seconds'], 1e-12),
            'proven at once %': 100 * counts['at_once'] / max(counts['pieces'], 1),
            'proofs refused %': 100 * counts['refused'] / max(counts['pieces'], 1)}


def _busy() -> None:
    """A busy loop (``--busy``): one core's worth of load."""
    while True:
        sum(range(10000))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('--robots', nargs='*', help='names (substrings) to run')
    parser.add_argument('--real', type=int, default=None,
                        help='real files (default all)')
    parser.add_argument('--states', type=int, default=1000)
    parser.add_argument('--targets', type=int, default=2000)
    parser.add_argument('--pairs', type=int, default=200)
    parser.add_argument('--lines', type=int, default=50, help='Cartesian lines per robot')
    parser.add_argument('--rate', type=float, default=10000.0,
                        help='Hz at which our plans are played and checked by mplib')
    parser.add_argument('--busy', type=int, default=0,
                        help='busy loops beside the benchmark (2: both cores busy)')
    args = parser.parse_args()
    import multiprocessing
    loops = [multiprocessing.Process(target=_busy, daemon=True) for _ in range(args.busy)]
    for loop in loops:
        loop.start()
    import hebi
    began = time.perf_counter()
    failures = []
    rows = []
    corner_ratios = []
    for name, path in robots(args.robots, args.real):
        model = load(path)
        planner = MotionPlanner(model)
        with tempfile.TemporaryDirectory() as folder:
            mplib = Mplib(model, folder)
        hebi_model = hebi.robot_model.import_from_hrdf(path)
        rng = np.random.default_rng(1)
        row = {'robot': name, 'dof': model.dof_count}
        row.update(checks(planner, mplib, args.states, rng))
        row.update(collision_free_ik(planner, mplib, hebi_model, model, path, args.targets, rng))
        fingers = planner.scene.gripper_positions
        if fingers:                          # the same with the fingers closed
            planner.set_gripper_positions({joint: GRIPPER_UPPER for joint in fingers})
            with tempfile.TemporaryDirectory() as folder:
                closed = Mplib(model, folder, gripper=GRIPPER_UPPER)
            shut = collision_free_ik(planner, closed, hebi_model, model, path, args.targets,
                                     np.random.default_rng(2))
            row.update({'ik free % closed': shut['ik free %'], 'ik us closed': shut['ik us'],
                        'trac-ik us closed': shut['trac-ik us']})
            planner.set_gripper_positions({joint: 0.0 for joint in fingers})
        if args.pairs:
            row.update(motions(planner, mplib, args.pairs, rng, args.rate))
            corner_ratios.append(row.pop('corner ratios'))
        if args.lines:
            row.update(cartesian(planner, hebi_model, args.lines, rng))
        rows.append(row)
        print(' | '.join(f'{k} {v:.4g}' if isinstance(v, float) else f'{k} {v}'
                         for k, v in row.items()), flush=True)
        for fingers in ('', ' closed'):
            if f'ik free %{fingers}' not in row:
                continue
            if row[f'ik free %{fingers}'] < 99.5:
                failures.append(f'{name}{fingers}: collision-free IK '
                                f'{row[f"ik free %{fingers}"]:.2f} % < 99.5 %')
            if row[f'ik us{fingers}'] > row[f'trac-ik us{fingers}']:
                failures.append(f'{name}{fingers}: IK mean {row[f"ik us{fingers}"]:.0f} us > '
                                f'TRAC-IK {row[f"trac-ik us{fingers}"]:.0f} us')
        if model.dof_count == 7 and row['check us'] > row['mplib us']:   # the target: 7-DoF
            failures.append(f'{name}: check {row["check us"]:.1f} us > mplib '
                            f'{row["mplib us"]:.1f} us')
        if args.pairs:
            if row['collided']:
                failures.append(f'{name}: {row["collided"]} plans collide as played at '
                                f'{args.rate:g} Hz ({row["collided at"]})')
            if row['plans'] < row['mplib valid']:
                failures.append(f'{name}: {row["plans"]} plans < mplib\'s {row["mplib valid"]}')
            if row['plan s (both)'] > row['mplib s (both)']:
                failures.append(f'{name}: mean plan {row["plan s (both)"]:.3f} s > mplib '
                                f'{row["mplib s (both)"]:.3f} s on the pairs both plan')
            if row['corners max'] > 1.0:
                failures.append(f'{name}: a plan {row["corners max"]:.3f} x stopping at '
                                'every corner')
            if row['limits as played'] > 1.001 or row['line excess %'] > 1.0:
                failures.append(f'{name}: limits {row["limits as played"]:.4f}, '
                                f'line {row["line excess %"]:.2f} %')
        if row.get('lines tried'):
            if row['followed %'] < 99.0 or row['off line mm'] > 1.0 or row['off rad'] > 0.01 \
                    or row['cartesian limits'] > 1.001:
                failures.append(f'{name}: Cartesian {row["followed %"]:.1f} % followed, '
                                f'{row["off line mm"]:.3f} mm, {row["off rad"]:.4f} rad, '
                                f'limits {row["cartesian limits"]:.4f}')
    ratios = np.concatenate(corner_ratios) if corner_ratios else np.zeros(0)
    if len(ratios):
        print(f'\nplans of 2+ segments: {len(ratios)}; duration / stopping at every corner: '
              f'median {np.median(ratios):.3f}, max {np.max(ratios):.3f}')
        if len(ratios) and np.median(ratios) > 0.85:
            failures.append(f'corners: median {np.median(ratios):.3f} > 0.85')
    if args.pairs:
        total = {k: sum(r[k] for r in rows) for k in
                 ('planned', 'plans', 'collided', 'mplib false contacts', 'mplib claimed',
                  'mplib valid')}
        print('\nall robots: ' + ', '.join(f'{k} {v}' for k, v in total.items()))
    print(f'\n{len(rows)} robots in {time.perf_counter() - began:.0f} s'
          + (f' with {args.busy} busy loops beside' if args.busy else ''))
    for loop in loops:
        loop.terminate()
    for line in failures:
        print('FAIL', line)
    print('all targets PASS' if not failures else f'{len(failures)} targets FAIL')
    return 0


if __name__ == '__main__':
    sys.exit(main())
