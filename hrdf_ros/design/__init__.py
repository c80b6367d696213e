"""From a job to the lightest HEBI arm that does it (``hrdf design``).

In: a task (targets, payload, collision objects, the space to search: :mod:`.task`).
Out: for now, the checked task; the search over module chains and its answers (HRDF
files written by :func:`hrdf_ros.to_hrdf`) build on it.
"""
from .task import Target, Task, read_task, task

__all__ = ['Target', 'Task', 'read_task', 'task']
