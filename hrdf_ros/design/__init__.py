"""From a job to the lightest HEBI arm that does it (``hrdf design``).

In: a task (targets, payload, collision objects, the space to search: :mod:`.task`).
Out: for now, the checked task and the space of arms to search (:mod:`.space`: a
:class:`Design` and its HRDF); the search over module chains builds on them.
"""
from .space import Connector, Design, design_of
from .task import Target, Task, read_task, task

__all__ = ['Connector', 'Design', 'Target', 'Task', 'design_of', 'read_task', 'task']
