"""The node's QoS: robot_state_publisher's, overridable with the same parameters.

robot_state_publisher (Jazzy/Kilted) publishes ``robot_description`` reliable and
transient local with depth 1, ``/tf`` with tf2_ros's dynamic broadcaster QoS (reliable,
volatile, depth 100) and ``/tf_static`` with the static broadcaster QoS (reliable,
transient local, depth 1), and subscribes to ``joint_states`` best effort
(SensorDataQoS), which matches reliable and best-effort publishers alike. The
``qos_overrides.<topic>.<publisher|subscription>.<policy>`` parameters it accepts (read
at start) are accepted here for the same topics and policies.

:data:`TOPICS` is the node's topics: the node creates its publishers and its
subscription from it, and the documentation's node reference renders it.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy
from rclpy.qos_overriding_options import QoSOverridingOptions, QoSPolicyKind

LATCHED_QOS = QoSProfile(depth=1, reliability=ReliabilityPolicy.RELIABLE,
                         durability=DurabilityPolicy.TRANSIENT_LOCAL)
TF_QOS = QoSProfile(depth=100, reliability=ReliabilityPolicy.RELIABLE)
# Best effort, as robot_state_publisher's joint_states subscription (SensorDataQoS): it
# matches both reliable and best-effort publishers (drivers often use the latter); a
# reliable subscription would not match best-effort publishers at all. Depth 100 (5 in
# robot_state_publisher) absorbs bursts at kHz rates.
JOINT_STATES_QOS = QoSProfile(depth=100, reliability=ReliabilityPolicy.BEST_EFFORT)

#: robot_state_publisher's joint_states subscription: with_default_policies()
#: (history, depth, reliability)
JOINT_STATES_OVERRIDES = QoSOverridingOptions.with_default_policies()
#: tf2_ros TransformBroadcaster: depth, durability, history, reliability
TF_OVERRIDES = QoSOverridingOptions([QoSPolicyKind.DEPTH, QoSPolicyKind.DURABILITY,
                                     QoSPolicyKind.HISTORY, QoSPolicyKind.RELIABILITY])
#: tf2_ros StaticTransformBroadcaster: depth, history, reliability
TF_STATIC_OVERRIDES = QoSOverridingOptions([QoSPolicyKind.DEPTH, QoSPolicyKind.HISTORY,
                                            QoSPolicyKind.RELIABILITY])


@dataclass(frozen=True)
class Topic:
    """One topic of ``hrdf_ros_node``.

    Attributes:
        name: topic name (relative names are in the node's namespace).
        type_name: message type, ``package/msg/Type``.
        published: True for a publisher, False for the subscription.
        qos: the QoS profile it is created with.
        overrides: the ``qos_overrides.<topic>.<publisher|subscription>.<policy>``
            parameters it accepts (as robot_state_publisher), or None.
        description: what flows on it (inline Markdown).
        robot_state_publisher: what robot_state_publisher does there (inline Markdown).
    """

    name: str
    type_name: str
    published: bool
    qos: QoSProfile
    overrides: Optional[QoSOverridingOptions]
    description: str
    robot_state_publisher: str


ROBOT_DESCRIPTION = Topic(
    'robot_description', 'std_msgs/msg/String', True, LATCHED_QOS, None,
    'The URDF, on every model (start, reload).', 'same; on every URDF set')
JOINT_STATES = Topic(
    'joint_states', 'sensor_msgs/msg/JointState', False, JOINT_STATES_QOS,
    JOINT_STATES_OVERRIDES, 'URDF joint values (rad, m) by joint name. Best effort '
    'matches reliable and best-effort publishers.',
    'best effort, volatile, keep last 5 (SensorDataQoS)')
TF = Topic(
    '/tf', 'tf2_msgs/msg/TFMessage', True, TF_QOS, TF_OVERRIDES,
    'Moving joints, stamped with the joint_states stamp (the time of arrival for a '
    'zero stamp), at most `publish_frequency`.', 'same (tf2_ros TransformBroadcaster)')
TF_STATIC = Topic(
    '/tf_static', 'tf2_msgs/msg/TFMessage', True, LATCHED_QOS, TF_STATIC_OVERRIDES,
    'Fixed joints, once per model.', 'same (StaticTransformBroadcaster)')
#: Every topic of ``hrdf_ros_node``, in the order the reference lists them.
TOPICS = (ROBOT_DESCRIPTION, JOINT_STATES, TF, TF_STATIC)
