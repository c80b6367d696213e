"""Work off the executor's thread, for the services that read files or text and for
inverse kinematics.

In: a function and its arguments (parsing an HRDF and preparing a model, validating
one, solving an IK request). Out: its result, awaited by an ``async`` service callback.
The function runs in one worker thread (requests are handled one after the other), while
the node's executor goes on with joint_states and /tf; the awaiting callback resumes on
the executor's thread, so what it does with the result (switching the running model)
never races the joint_states callback.

The node spins its EventsExecutor in slices (:class:`SpinSlices`): a callback resumed by
a future completed from another thread runs only when the slice ends. The worker ends
the slice after each result, so the callback resumes at once (measured on
``~/solve_ik``: 100 ms, a whole slice, before; 1 ms after).
"""
from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from typing import Callable, Optional

from rclpy.task import Future


class SpinSlices:
    """An executor spun in slices of at most ``timeout`` s that :meth:`wake` ends early
    (from any thread)."""

    def __init__(self):
        self._future = Future()

    def wake(self) -> None:
        """End the current slice (the executor then runs what other threads queued)."""
        self._future.set_result(None)

    def spin(self, executor, timeout: float) -> None:
        """One slice: every event until ``timeout`` s pass or :meth:`wake` is called."""
        executor.spin_until_future_complete(self._future, timeout_sec=timeout)
        if self._future.done():
            self._future = Future()


class Background:
    """One worker thread (requests one after the other), named ``name``; ``wake`` is
    called after each result (the node's :meth:`SpinSlices.wake`)."""

    def __init__(self, name: str = 'hrdf_ros_read', wake: Optional[Callable[[], None]] = None):
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix=name)
        self._wake = wake

    async def run(self, executor, function, *args, **kwargs):
        """``function(*args, **kwargs)`` in the worker thread; returns its result or
        raises its exception, back on ``executor``'s thread."""
        future = Future(executor=executor)

        def work():
            try:
                future.set_result((True, function(*args, **kwargs)))
            except Exception as exc:  # noqa: BLE001 - handed back to the caller
                future.set_result((False, exc))
            if self._wake is not None:
                self._wake()
        self._pool.submit(work)
        ok, value = await future
        if not ok:
            raise value
        return value

    def shutdown(self) -> None:
        """Drop requests not started; a running one finishes in its thread."""
        self._pool.shutdown(wait=False, cancel_futures=True)
