"""From a job to the lightest HEBI arm that does it (``hrdf design``).

In: a task (targets, payload, collision objects, the space to search: :mod:`.task`).
Out: a :class:`~.search.DesignResult`: every design evaluated (:mod:`.evaluate`: sized,
ranked, each with the configurations that prove it), the best first, and HEBI's kits
that fit the task as sold. The space is :mod:`.space` (a :class:`Design` and its HRDF),
the search :mod:`.search` (Optuna), where it runs :mod:`.engines` (this process, a
process pool, a Dask cluster).
"""
from typing import Optional, Union

from .space import Connector, Design, design_of, parse_design
from .task import Target, Task, read_task, task

#: Designs a search evaluates when the caller does not say (HEBI's kits that fit the
#: task included); with 2 workers a 10-target task takes about two minutes
#: (benchmarks/design_benchmark.py).
DEFAULT_EVALUATIONS = 400


def design_arm(job: Union[Task, dict, str], *, seed: int = 0,
               evaluations: Optional[int] = None, workers: int = 1,
               cluster: Optional[str] = None, top: int = 5, progress=None):
    """The lightest HEBI module arms that do a job (:mod:`hrdf_ros.design.search`).

    Args:
        job: a :class:`~hrdf_ros.design.task.Task`, the mapping of a task file, or a task file's path.
        seed: the search's seed.
        evaluations: designs to evaluate (default
            ``DEFAULT_EVALUATIONS``, 400; at least HEBI's kits that fit).
        workers: processes of this machine (1: this one).
        cluster: a running Dask scheduler's address (``tcp://host:8786``); the
            evaluations run on its workers instead.
        top: distinct designs in ``best``.
        progress: called with (designs evaluated, total) after each batch.

    Returns:
        a :class:`~hrdf_ros.design.search.DesignResult`; the same designs, byte for byte, for a seed
        and budget whatever ``workers`` and ``cluster``.

    Raises:
        ValueError: a bad task (one line) or bad arguments.
        ImportError: the design extra is missing.
        OSError: no scheduler at ``cluster``.
    """
    from .engines import engine                                     # noqa: PLC0415
    from .search import search                                      # noqa: PLC0415
    if isinstance(job, str):
        job = read_task(job)
    elif not isinstance(job, Task):
        job = task(job)
    run = engine(job, workers, cluster)
    try:
        return search(job, run, seed=seed, evaluations=evaluations, top=top,
                      progress=progress)
    finally:
        run.close()


__all__ = ['DEFAULT_EVALUATIONS', 'Connector', 'Design', 'Target', 'Task', 'design_arm', 'design_of',
           'parse_design', 'read_task', 'task']
