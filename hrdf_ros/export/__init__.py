"""Writers: a robot description spelled as files other programs read.

In: a :class:`~hrdf_ros.description.robot.RobotDescription` (built from a
:class:`~hrdf_ros.model.RobotModel` and options). Out: text. A writer decides nothing
about the robot; :mod:`hrdf_ros.description` does.

* :mod:`.urdf` URDF (joints, transmissions) and the xacro macro;
* :mod:`.sdf` SDFormat (Gazebo);
* :mod:`.mjcf` MuJoCo (:mod:`.mjcf_bodies` the body tree);
* :mod:`.ros2_control` the ``<ros2_control>`` block and its xacro macro (mock, Gazebo,
  HEBI hardware);
* :mod:`.moveit` a MoveIt 2 config package (it embeds the URDF and ros2_control writers'
  output);
* writer tools: :mod:`.xml_text` numbers and poses as XML text, :mod:`.urdf_structure`
  a URDF document read back.

Writers do not import each other (but :mod:`.moveit`: :mod:`.urdf`,
:mod:`.ros2_control`) nor :mod:`hrdf_ros.parts`; never :mod:`hrdf_ros.ros` or rclpy.
"""
