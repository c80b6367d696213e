"""The node's executor: rclpy's EventsExecutor, spun in slices, kept alive when a task
raises.

In: the node. Out: :class:`NodeExecutor`, whose :meth:`NodeExecutor.spin` runs one slice
of events (:class:`.background.SpinSlices`) and returns; an exception that a task raised
is logged on the node's logger (an error line each time it is raised), and the spin goes
on with the next slice.

Why a second, hidden node: in rclpy 9.1.2 (the newest on PyPI), the EventsExecutor dies
with SIGSEGV when a task raises while exactly one node is added to it (it reads that
node's logger with ``nodes_[0]`` on a ``py::set``: ros2/rclpy#1641, fixed upstream by
ros2/rclpy#1718, not in 9.1.2). Any task can raise there: a coroutine service callback,
an action server's or client's internals, a future's done callback. With two nodes it
takes the other branch and raises the exception out of the spin instead, where it is
caught here. The second node, ``_<node name>_tasks`` in the node's namespace, is hidden
(``ros2 node list`` shows it with ``--all`` only), has no parameter services, no
/rosout publisher and nothing of its own to spin, and shares the node's DDS participant
(one per context). test/test_ros_executor.py shows both: the crash with one node, and a
node that logs and goes on with this executor.
"""
from __future__ import annotations

from rclpy.experimental import EventsExecutor
from rclpy.node import Node

#: name of the hidden node, from the node's name (a leading '_' hides it)
TASK_NODE_NAME = '_{name}_tasks'


class NodeExecutor:
    """An EventsExecutor with ``node`` and a hidden node of its own (see the module's
    docstring); :meth:`spin` runs one slice and never raises what a task raised."""

    def __init__(self, node: Node):
        self.node = node
        self.executor = EventsExecutor(context=node.context)
        self._tasks = Node(TASK_NODE_NAME.format(name=node.get_name()),
                           namespace=node.get_namespace(), context=node.context,
                           use_global_arguments=False, start_parameter_services=False,
                           enable_rosout=False)
        self.executor.add_node(node)
        self.executor.add_node(self._tasks)
        self.raised = 0   # tasks that raised so far (each logged)

    def spin(self, slices, timeout: float) -> None:
        """One slice of at most ``timeout`` s (``slices``: the node's
        :class:`.background.SpinSlices`). A task's exception is logged, not raised."""
        try:
            slices.spin(self.executor, timeout)
        except Exception as exc:  # noqa: BLE001 - any task's; the node goes on
            self.raised += 1
            self.node.get_logger().error(
                f'a callback raised {type(exc).__name__}: {exc} (the node goes on; '
                'please report it)')

    def destroy(self) -> None:
        """Remove both nodes from the executor and destroy the hidden one."""
        self.executor.remove_node(self.node)
        self.executor.remove_node(self._tasks)
        self._tasks.destroy_node()
