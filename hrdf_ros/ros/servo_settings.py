"""The node's ``servo.*`` parameters as one value (no message packages imported: the node
reads them whether or not it can run the servo).

In: the declared values (:mod:`.parameters`). Out: :class:`ServoSettings`, and
:func:`start_servo`, which runs the servo on a node where its message packages import.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

from ..export.moveit.config_files import FORWARD_POSITION_CONTROLLER
from ..servo.parameters import ServoParameters

#: The outputs ``servo.command_out_type`` chooses between, and the topic each goes to
#: when ``servo.command_out_topic`` is empty: the controllers ``hrdf moveit`` writes.
COMMAND_OUT_TOPICS = {'forward_position': f'/{FORWARD_POSITION_CONTROLLER}/commands',
                      'joint_trajectory': '/arm_controller/joint_trajectory'}


@dataclass(frozen=True)
class ServoSettings:
    """The node's ``servo.*`` parameters.

    Attributes:
        enabled: run the servo.
        command_out_type: a key of :data:`COMMAND_OUT_TOPICS`.
        command_out_topic: where the commands go (:data:`COMMAND_OUT_TOPICS` for the type
            when empty).
        parameters: the core's :class:`~hrdf_ros.servo.ServoParameters`.
    """

    enabled: bool = False
    command_out_type: str = 'forward_position'
    command_out_topic: str = ''
    parameters: ServoParameters = field(default_factory=ServoParameters)

    @property
    def topic(self) -> str:
        """The topic the commands go to."""
        return self.command_out_topic or COMMAND_OUT_TOPICS[self.command_out_type]


def start_servo(node, settings: ServoSettings) -> Optional[object]:
    """The node's :class:`~.servo_interface.ServoInterface`, running; None (and an error
    logged saying why) where control_msgs or moveit_msgs does not import."""
    try:
        from .servo_interface import ServoInterface  # noqa: PLC0415 - its messages
    except ImportError as exc:
        node.get_logger().error(
            f'servo.enabled: the servo needs control_msgs (JointJog) and moveit_msgs '
            f'(ServoCommandType), which do not import ({exc}); make env builds both, a '
            'ROS 2 install has ros-$ROS_DISTRO-control-msgs and '
            'ros-$ROS_DISTRO-moveit-msgs. Running without the servo')
        return None
    servo = ServoInterface(node, settings)
    node.get_logger().info(servo.describe())
    return servo
