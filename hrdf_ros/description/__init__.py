"""The robot as every output sees it, in no file format.

In: a :class:`~hrdf_ros.model.RobotModel` (and naming, limit and mesh options). Out:
plain data that the writers of :mod:`hrdf_ros.export` spell, each in its format.

* :mod:`.robot` :class:`~.robot.RobotDescription`, all of the below for one robot;
* :mod:`.frame_tree` link and joint names (the URDF/TF tree, shared with the ROS node);
  :mod:`.structure` that tree with joint types, limits and mimic rules;
* :mod:`.limits` joint limits (user YAML, defaults); :mod:`.inertials` masses and
  tensors with the physical fill; :mod:`.link_shapes` the visual and collision shapes
  of each link, with colours and mesh sources (from :mod:`hrdf_ros.parts`);
* :mod:`.gripper` a parallel gripper's links, finger joint and mimic rules;
* :mod:`.hebi_arm` a HEBI arm config's names and limits;
* semantics shared by the MoveIt package and the MJCF model: :mod:`.groups` planning
  groups, :mod:`.gripper_groups` grippers' groups, :mod:`.states` named states,
  :mod:`.collision_shapes`, :mod:`.link_poses` and :mod:`.collision_matrix` the
  self-collision matrix (python-fcl), :mod:`.semantics` all of them together.

Units: m, kg, rad, kg m^2. Imports :mod:`hrdf_ros.parts` and the layers below it; never
:mod:`hrdf_ros.export`.
"""
