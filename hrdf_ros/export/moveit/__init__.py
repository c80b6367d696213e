"""MoveIt 2 config packages from robot models (no ROS needed to write them).

In: a :class:`~hrdf_ros.model.RobotModel` (and options). Out: the files of a MoveIt config
package as MoveIt Setup Assistant lays one out (package.xml, CMakeLists.txt,
.setup_assistant, config/, launch/), which ``colcon build`` installs and
``MoveItConfigsBuilder`` loads.

* :mod:`.package` the package (names, templates, writing); :mod:`.config_files` its YAML
  (grippers' controllers too);
* :mod:`.srdf` the SRDF; the limits of ``joint_limits.yaml`` are the ones the motion
  planner uses too: :mod:`hrdf_ros.description.planning_limits`.

What the SRDF says (planning groups, named states, the self-collision matrix) is the
robot's, not the package's: :mod:`hrdf_ros.description.semantics` (the MJCF model uses
it too).
"""
import importlib

#: The names below come from :mod:`.package` (Jinja2) when first used (PEP 562), so the
#: other modules import without it.
_FROM_PACKAGE = ('MoveItPackage', 'moveit_package', 'package_name_for', 'ros_name',
                 'write_moveit_package')


def __getattr__(name):
    if name in _FROM_PACKAGE:
        return getattr(importlib.import_module('.package', __name__), name)
    raise AttributeError(f'module {__name__!r} has no attribute {name!r}')


__all__ = ['MoveItPackage', 'moveit_package', 'package_name_for', 'ros_name',
           'write_moveit_package']
