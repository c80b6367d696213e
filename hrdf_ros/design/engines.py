"""Where ``hrdf design`` evaluates designs: this process, a process pool, or a Dask
cluster.

In: a :class:`~.task.Task` and batches of :class:`~.space.Design` values. Out: their
:class:`~.evaluate.Evaluation` values, in the order given. Every engine runs the same
function (:func:`evaluate`) on the same inputs, so the evaluations are the same wherever
they run.

* :class:`InProcess` (``workers=1``): one evaluator in this process.
* :class:`ProcessPool` (``workers=N``): ``concurrent.futures.ProcessPoolExecutor`` with N
  processes started by ``spawn`` (no state forked from the caller).
* :class:`DaskCluster` (``cluster=ADDRESS``): an existing ``dask.distributed`` scheduler
  (``dask scheduler`` and ``dask worker`` on the machines, each worker with hrdf_ros
  installed); ``Client.map`` then ``Client.gather`` in order. Dask rather than Ray: a
  pure-Python scheduler of about 5 MB (Ray's wheel is about 60 MB and runs its own
  object store and raylet per node), started with two commands, and its ``Client.map``
  is all the search needs; both would give the same designs.

Each worker process keeps one evaluator per task (keyed by the pickled task's SHA-256),
so the planning scene's caches survive between the designs of a search.
"""
from __future__ import annotations

import hashlib
import pickle
from typing import Dict, List, Optional

from .evaluate import Evaluation, Evaluator
from .space import Design
from .task import Task

#: The evaluators of this process, by task digest (the last few tasks).
_EVALUATORS: Dict[str, Evaluator] = {}
_KEEP = 4


def _digest(task: Task) -> str:
    return hashlib.sha256(pickle.dumps(task, protocol=4)).hexdigest()


def evaluate(design: Design, task: Task, size: bool = True) -> Evaluation:
    """One design against a task in this process (its evaluator kept for the next);
    ``size``: :meth:`~.evaluate.Evaluator.evaluate`'s."""
    key = _digest(task)
    evaluator = _EVALUATORS.get(key)
    if evaluator is None:
        while len(_EVALUATORS) >= _KEEP:
            _EVALUATORS.pop(next(iter(_EVALUATORS)))
        evaluator = _EVALUATORS[key] = Evaluator(task)
    return evaluator.evaluate(design, size)


class InProcess:
    """Evaluates in this process."""

    def __init__(self, task: Task):
        self.task = task

    def __call__(self, designs: List[Design], size: bool = True) -> List[Evaluation]:
        return [evaluate(d, self.task, size) for d in designs]

    def close(self) -> None:
        """Nothing to release."""


class ProcessPool:
    """Evaluates in ``workers`` processes of this machine."""

    def __init__(self, task: Task, workers: int):
        import multiprocessing                                      # noqa: PLC0415
        from concurrent.futures import ProcessPoolExecutor          # noqa: PLC0415
        self.task = task
        self._pool = ProcessPoolExecutor(workers,
                                         mp_context=multiprocessing.get_context('spawn'))

    def __call__(self, designs: List[Design], size: bool = True) -> List[Evaluation]:
        return list(self._pool.map(evaluate, designs, [self.task] * len(designs),
                                   [size] * len(designs)))

    def close(self) -> None:
        """Stop the processes."""
        self._pool.shutdown(wait=True, cancel_futures=True)


class DaskCluster:
    """Evaluates on the workers of a running Dask scheduler at ``address``."""

    def __init__(self, task: Task, address: str):
        try:
            from distributed import Client                         # noqa: PLC0415
        except ImportError as error:
            raise ImportError('hrdf design --cluster needs the design extra: pip install '
                              '"hrdf_ros[design]" (Optuna, Dask)') from error
        self.task = task
        self._client = Client(address, timeout='30s')
        self._task = self._client.scatter(task, broadcast=True)

    def __call__(self, designs: List[Design], size: bool = True) -> List[Evaluation]:
        futures = self._client.map(evaluate, designs, task=self._task, size=size,
                                   pure=False)
        return self._client.gather(futures)

    def close(self) -> None:
        """Disconnect (the cluster keeps running)."""
        self._client.close()


def engine(task: Task, workers: int = 1, cluster: Optional[str] = None):
    """The engine of ``workers`` and ``cluster`` (module docstring).

    Raises:
        ValueError: ``workers`` < 1. ImportError: ``cluster`` without the design extra.
        OSError: no scheduler at ``cluster``.
    """
    if not (isinstance(workers, int) and workers >= 1):
        raise ValueError(f'workers must be an integer >= 1, got {workers!r}')
    if cluster:
        return DaskCluster(task, cluster)
    return ProcessPool(task, workers) if workers > 1 else InProcess(task)
