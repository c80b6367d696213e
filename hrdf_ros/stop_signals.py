"""SIGINT and SIGTERM as a stop request that a long-running program polls.

In: the two signals, once :func:`stop_on_signals` has installed its handler. Out: a
:class:`StopRequest` whose :meth:`~StopRequest.is_set` turns True at the first of them.

Why not a ``threading.Event``: Python runs a signal handler in the main thread between
two bytecodes, wherever that thread is, also inside ``Event.wait()`` at a point where it
holds the event's (non-reentrant) lock: after the timed wait it takes the lock back and
leaves through ``Condition.__exit__``, where the pending handler runs. The handler's
``Event.set()`` then waits for ever on that lock, held by its own thread (seen: ``hrdf
view`` hung after a SIGINT, 1 CI run in 7, while a thread building its collision checks
kept the GIL busy, so the main thread often woke and held the lock). So the handler here
takes no lock at all: it ignores further signals and sets a boolean.

Imports nothing beyond the standard library (the console programs install it before
their slow imports).
"""
import signal
import time

#: s between two looks at the flag in :meth:`StopRequest.wait` (the longest a signal
#: delivered to another thread waits to be seen: Python's handler runs in the main thread
#: once it wakes; a signal delivered to the main thread interrupts the sleep at once).
WAIT_STEP_S = 0.02


class StopRequest:
    """A flag set once, from a signal handler or any thread, and never reset. Setting and
    reading it take no lock (a bool assignment and read are atomic under the GIL)."""

    def __init__(self) -> None:
        self._set = False

    def set(self) -> None:
        """Ask for the stop (idempotent)."""
        self._set = True

    def is_set(self) -> bool:
        """True once :meth:`set` was called."""
        return self._set

    def wait(self, timeout: float) -> bool:
        """Sleep until the stop is asked for or ``timeout`` s (>= 0) have passed, looking
        every :data:`WAIT_STEP_S` s; returns :meth:`is_set`."""
        deadline = time.monotonic() + timeout
        while not self._set:
            left = deadline - time.monotonic()
            if left <= 0:
                break
            time.sleep(min(WAIT_STEP_S, left))
        return self._set


def stop_on_signals() -> StopRequest:
    """Install a SIGINT and SIGTERM handler (call from the main thread) and return the
    :class:`StopRequest` it sets. At the first signal the handler ignores both signals
    from then on (``ros2 launch`` may send a second SIGINT during a clean shutdown, and a
    second Ctrl-C must not interrupt it with a traceback), then sets the request."""
    stop = StopRequest()

    def request_stop(signum, frame):
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        stop.set()

    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, request_stop)
    return stop
