"""The node's QoS: robot_state_publisher's, overridable with the same parameters.

robot_state_publisher (Jazzy/Kilted) publishes ``robot_description`` reliable and
transient local with depth 1, ``/tf`` with tf2_ros's dynamic broadcaster QoS (reliable,
volatile, depth 100) and ``/tf_static`` with the static broadcaster QoS (reliable,
transient local, depth 1), and subscribes to ``joint_states`` best effort
(SensorDataQoS), which matches reliable and best-effort publishers alike. The
``qos_overrides.<topic>.<publisher|subscription>.<policy>`` parameters it accepts (read
at start) are accepted here for the same topics and policies.
"""
from __future__ import annotations

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
