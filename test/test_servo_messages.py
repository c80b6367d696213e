"""The node servo's message conversions (:mod:`hrdf_ros.ros.servo_messages`) and the arm's
one owner (:mod:`hrdf_ros.ros.arm_owner`), without a running node.

Real messages (geometry_msgs, control_msgs, std_msgs, trajectory_msgs), the running
robot as the node loads it (:func:`~hrdf_ros.ros.loaded_robot.load_robot`), and the
kinematics as the oracle: a twist given in a link's frame equals that link's rotation
times the twist; a joint jog maps by name and gear ratio (a geared HRDF: gear ratios 3
and -2); a pose in a link's frame is that link's pose times it; frames TF connects with
the base link are found through a common root; bad commands get a CommandError naming
what is wrong.
"""
import math
import threading

import numpy as np
import pytest

pytest.importorskip('control_msgs.msg')
from control_msgs.msg import JointJog                               # noqa: E402
from geometry_msgs.msg import PoseStamped, TransformStamped, TwistStamped  # noqa: E402
from tf2_msgs.msg import TFMessage                                  # noqa: E402

from hrdf_ros.kinematics.rotations import rotation_to_quaternion   # noqa: E402
from hrdf_ros.ros.arm_owner import ArmOwner                         # noqa: E402
from hrdf_ros.ros.ik_service import IkQueries                       # noqa: E402
from hrdf_ros.ros.loaded_robot import RobotOptions, load_robot      # noqa: E402
from hrdf_ros.ros.servo_messages import (CommandError, Frames, jog_command,  # noqa: E402
                                         pose_command, position_message,
                                         trajectory_message, twist_command)
from hrdf_ros.ros.tf_buffer import TfBuffer                         # noqa: E402

from conftest import BUNDLED_ARM                                    # noqa: E402
from test_frame_sets import GEARED                                  # noqa: E402

Q = np.array([0.3, -0.4, 1.1, -0.7, 0.5, 0.2])


@pytest.fixture(scope='module')
def arm():
    robot = load_robot(RobotOptions(), path=BUNDLED_ARM)
    return robot, Frames(IkQueries(robot, 0.05))


def _twist(frame_id, linear, angular):
    message = TwistStamped()
    message.header.frame_id = frame_id
    t = message.twist
    t.linear.x, t.linear.y, t.linear.z = linear
    t.angular.x, t.angular.y, t.angular.z = angular
    return message


def _pose(frame_id, matrix):
    message = PoseStamped()
    message.header.frame_id = frame_id
    p, o = message.pose.position, message.pose.orientation
    p.x, p.y, p.z = (float(v) for v in matrix[:3, 3])
    o.x, o.y, o.z, o.w = (float(v) for v in rotation_to_quaternion(matrix[:3, :3]))
    return message


def test_a_twist_in_a_link_frame_is_turned_into_the_base_frame(arm):
    robot, frames = arm
    linear, angular = [0.1, -0.2, 0.05], [0.3, 0.0, -0.1]
    for frame_id in ('', robot.base_frame_id):
        twist = twist_command(_twist(frame_id, linear, angular), frames, Q, 0)
        assert twist.frame == 'base'
        assert np.array_equal(twist.linear, linear) and np.array_equal(twist.angular, angular)
    links = [name for name, (kind, _) in frames.ik.frames.items()
             if kind != 'base' and name not in frames.ik.end_effectors]
    assert len(links) >= 6
    for name in links:
        kind, index = frames.ik.frames[name]
        rotation = robot.kinematics.frame(kind, index, Q)[:3, :3]
        twist = twist_command(_twist(name, linear, angular), frames, Q, 0)
        assert twist.frame == 'base'
        assert np.allclose(twist.linear, rotation @ linear, atol=1e-15)
        assert np.allclose(twist.angular, rotation @ angular, atol=1e-15)
    tool = frames.end_effector_link(0)
    twist = twist_command(_twist(tool, linear, angular), frames, Q, 0)
    assert twist.frame == 'end_effector' and np.array_equal(twist.linear, linear)


def test_frames_that_tf_connects_with_the_base_link(arm):
    robot, _ = arm
    tf = TfBuffer()
    frames = Frames(IkQueries(robot, 0.05), tf)
    with pytest.raises(CommandError, match="'world'.*neither a link of the robot"):
        frames.pose('world', Q)

    def edge(parent, child, xyz, angle):
        t = TransformStamped()
        t.header.frame_id, t.child_frame_id = parent, child
        t.transform.translation.x, t.transform.translation.y, t.transform.translation.z = xyz
        t.transform.rotation.z, t.transform.rotation.w = math.sin(angle / 2), math.cos(angle / 2)
        return t
    # world -> base_link and world -> camera: the camera's pose in the base link
    tf.add_message(TFMessage(transforms=[edge('world', robot.base_frame_id, (1.0, 0.0, 0.0),
                                              math.pi / 2),
                                         edge('world', 'camera', (1.0, 2.0, 0.5), 0.0)]))
    camera = frames.pose('camera', Q)
    assert np.allclose(camera[:3, 3], [2.0, 0.0, 0.5], atol=1e-12)
    assert np.allclose(camera[:3, :3] @ [1.0, 0.0, 0.0], [0.0, -1.0, 0.0], atol=1e-12)
    twist = twist_command(_twist('camera', [1.0, 0.0, 0.0], [0.0, 0.0, 0.0]), frames, Q, 0)
    assert np.allclose(twist.linear, [0.0, -1.0, 0.0], atol=1e-12)


def test_a_joint_jog_maps_by_name_and_gear_ratio(tmp_path):
    path = tmp_path / 'geared.hrdf'
    path.write_text(GEARED)
    robot = load_robot(RobotOptions(), path=str(path))
    names, ratios = robot.joint_names, robot.gear_ratios
    assert sorted(set(abs(ratios))) == [1.0, 2.0, 3.0]
    message = JointJog(joint_names=[names[2], names[0]], velocities=[0.5, -0.25])
    jog = jog_command(message, names, ratios)
    expected = np.zeros(len(names))
    expected[2], expected[0] = 0.5 * ratios[2], -0.25 * ratios[0]
    assert jog.duration is None and np.array_equal(jog.velocities, expected)
    message = JointJog(joint_names=[names[1]], displacements=[0.2], duration=0.5)
    jog = jog_command(message, names, ratios)
    assert jog.duration == 0.5 and jog.velocities[1] == pytest.approx(0.2 * ratios[1] / 0.5)
    for bad, match in ((JointJog(joint_names=['nope'], velocities=[1.0]), 'not joints.*nope'),
                       (JointJog(joint_names=[names[0]] * 2, velocities=[1.0, 1.0]), 'twice'),
                       (JointJog(joint_names=[names[0]], velocities=[1.0, 2.0]),
                        '1 joint names but 2 velocities'),
                       (JointJog(joint_names=[names[0]], displacements=[0.1]), 'duration > 0'),
                       (JointJog(joint_names=[names[0]]), 'give velocities'),
                       (JointJog(joint_names=[names[0]], velocities=[math.nan]), 'finite')):
        with pytest.raises(CommandError, match=match):
            jog_command(bad, names, ratios)


def test_a_pose_in_a_link_frame_and_bad_poses(arm):
    robot, frames = arm
    target = np.eye(4)
    target[:3, 3] = [0.1, 0.02, -0.03]
    name, (kind, index) = next((n, f) for n, f in frames.ik.frames.items() if f[0] != 'base')
    pose = pose_command(_pose(name, target), frames, Q).pose
    assert np.allclose(pose, robot.kinematics.frame(kind, index, Q) @ target, atol=1e-12)
    zero = _pose('', target)
    zero.pose.orientation.w = 0.0
    with pytest.raises(CommandError, match='zero quaternion'):
        pose_command(zero, frames, Q)
    with pytest.raises(CommandError, match="'elsewhere'"):
        pose_command(_pose('elsewhere', target), frames, Q)


def test_the_controller_messages_carry_urdf_values():
    positions, velocities = np.array([0.6, -0.4]), np.array([0.3, 0.2])
    ratios = np.array([3.0, -2.0])
    assert list(position_message(positions, ratios).data) == [0.6 / 3.0, -0.4 / -2.0]
    message = trajectory_message(positions, velocities, ['a', 'b'], ratios, 0.001)
    assert message.joint_names == ['a', 'b'] and len(message.points) == 1
    point = message.points[0]
    assert list(point.positions) == [0.6 / 3.0, -0.4 / -2.0]
    assert list(point.velocities) == [0.3 / 3.0, 0.2 / -2.0]
    assert (point.time_from_start.sec, point.time_from_start.nanosec) == (0, 1_000_000)
    assert (message.header.stamp.sec, message.header.stamp.nanosec) == (0, 0)


def test_one_owner_of_the_arm_at_a_time():
    owner = ArmOwner()
    assert owner.claim('servo') is None and owner.claim('servo') is None
    assert 'the servo is moving the arm' in owner.claim('move_to')
    owner.release('move_to')                     # not its to give
    assert owner.owner == 'servo'
    owner.release('servo')
    assert owner.claim('move_to') is None
    assert 'a ~/move_to goal is moving the arm' in owner.claim('servo')
    with pytest.raises(ValueError):
        owner.claim('someone')
    owner.release('move_to')
    # many threads claim at once: exactly one wins
    owner, wins, barrier = ArmOwner(), [], threading.Barrier(8)

    def contend(who):
        barrier.wait()
        if owner.claim(who) is None:
            wins.append(who)
    threads = [threading.Thread(target=contend, args=(('servo', 'move_to')[k % 2],))
               for k in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(set(wins)) == 1
