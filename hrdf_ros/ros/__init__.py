"""The ROS 2 layer of hrdf_ros (rclpy): the node and its message helpers.

Everything here depends on rclpy and ROS message packages; the core package
(:mod:`hrdf_ros`) does not import anything from this subpackage.
"""
