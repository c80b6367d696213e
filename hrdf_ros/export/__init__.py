"""Exporters: a resolved robot as files other programs read (URDF, xacro, MoveIt 2).

In: a :class:`~hrdf_ros.model.RobotModel` (and, for MoveIt, its URDF). Out: text.

* :mod:`.frame_tree` the URDF/TF tree (link and joint names) shared with the ROS node;
* :mod:`.geometry` visual and collision shapes per element, from HEBI's parts
  (:mod:`.hebi_parts`: mesh, pose, colour per piece; :mod:`.part_collision`: the shapes
  fitted to each mesh); :mod:`.mesh_sources` where meshes come from (mesh_dir, the
  ament index, the user cache), :mod:`.mesh_fetch` ``hrdf meshes fetch`` downloads
  checked against :mod:`.hebi_mesh_files`, :mod:`.meshes` the HRDF's own meshes;
  :mod:`.limits` user joint limits (YAML);
* :mod:`.urdf` URDF and the xacro macro;
* :mod:`.urdf_structure` a URDF read back (joints, links, geometry) for the MoveIt files;
* :mod:`.ros2_control` the ``<ros2_control>`` block and its xacro macro (mock, Gazebo,
  HEBI hardware);
* :mod:`.moveit` a MoveIt 2 config package (planning groups, states, SRDF, collision
  matrix, limits, templates).

Imports :mod:`hrdf_ros.model`, :mod:`hrdf_ros.hrdf` (catalogue data) and
:mod:`hrdf_ros.kinematics`; never :mod:`hrdf_ros.ros` or rclpy.
"""
