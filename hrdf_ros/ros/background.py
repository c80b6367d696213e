"""Work off the executor's thread, for the services that read files or text.

In: a function and its arguments (parsing an HRDF and preparing a model, or validating
one). Out: its result, awaited by an ``async`` service callback. The function runs in
one worker thread (requests are handled one after the other), while the node's executor
goes on with joint_states and /tf; the awaiting callback resumes on the executor's
thread, so what it does with the result (switching the running model) never races the
joint_states callback.
"""
from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

from rclpy.task import Future


class Background:
    """One worker thread for the node's file and text requests."""

    def __init__(self):
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix='hrdf_ros_read')

    async def run(self, executor, function, *args, **kwargs):
        """``function(*args, **kwargs)`` in the worker thread; returns its result or
        raises its exception, back on ``executor``'s thread."""
        future = Future(executor=executor)

        def work():
            try:
                future.set_result((True, function(*args, **kwargs)))
            except Exception as exc:  # noqa: BLE001 - handed back to the caller
                future.set_result((False, exc))
        self._pool.submit(work)
        ok, value = await future
        if not ok:
            raise value
        return value

    def shutdown(self) -> None:
        """Drop requests not started; a running one finishes in its thread."""
        self._pool.shutdown(wait=False, cancel_futures=True)
