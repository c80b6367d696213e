"""hrdf_ros.stop_signals: the stop request that SIGINT and SIGTERM set in ``hrdf view``,
the ROS web view and the node. The handler must never wait for a lock: it runs in the
main thread wherever that thread is, also where it holds one."""
import os
import signal
import sys
import threading

import pytest

from hrdf_ros.stop_signals import StopRequest, stop_on_signals

SIGNALS = (signal.SIGINT, signal.SIGTERM)


@pytest.fixture
def handlers_restored():
    previous = {s: signal.getsignal(s) for s in SIGNALS}
    yield
    for sig, handler in previous.items():
        signal.signal(sig, handler)


def _line_events(call):
    """How many trace events (calls and lines, in every Python frame) ``call()`` runs."""
    count = [0]

    def tracer(frame, event, arg):
        count[0] += 1
        return tracer
    sys.settrace(tracer)
    try:
        call()
    finally:
        sys.settrace(None)
    return count[0]


def handler_at_every_point(make_stop, timeout_s=10.0, first_only=False):
    """For each trace event k of ``stop.wait(0.03)`` (every Python line and call inside
    it, threading's own included), a fresh ``stop`` from ``make_stop()`` whose wait runs
    the signal handler's ``stop.set()`` at event k, in the waiting thread itself, as
    Python runs a handler in the main thread between two bytecodes. Returns the events k
    where that wait did not end within ``timeout_s`` (a deadlock); with ``first_only``,
    only the first, and the total."""
    total = _line_events(lambda: make_stop().wait(0.03))
    stuck = []
    for k in range(1, total + 1):
        stop = make_stop()
        seen = [0]

        def tracer(frame, event, arg, stop=stop, seen=seen, k=k):
            seen[0] += 1
            if seen[0] == k:
                sys.settrace(None)
                stop.set()
                return None
            return tracer

        def run(stop=stop, tracer=tracer):
            sys.settrace(tracer)
            try:
                stop.wait(0.03)
            finally:
                sys.settrace(None)
        thread = threading.Thread(target=run, daemon=True)
        thread.start()
        thread.join(timeout_s)
        if thread.is_alive():
            stuck.append(k)
            if first_only:
                break
    return stuck, total


def test_the_handler_can_run_anywhere_inside_wait_without_a_deadlock():
    stuck, total = handler_at_every_point(StopRequest)
    assert total >= 5 and stuck == []


def test_a_threading_event_deadlocks_there_which_is_why_it_is_not_used():
    """The check above finds the hang that ``hrdf view`` had (a threading.Event set from
    the handler): at some point of ``Event.wait`` the waiting thread holds the lock that
    ``Event.set`` takes. (Its stuck threads are daemons, left blocked.)"""
    stuck, total = handler_at_every_point(threading.Event, timeout_s=0.5, first_only=True)
    assert stuck, f'no deadlock found in {total} points'


def test_a_real_sigint_ends_the_wait_and_further_signals_are_ignored(handlers_restored):
    stop = stop_on_signals()
    assert not stop.is_set() and stop.wait(0.0) is False
    timer = threading.Timer(0.05, os.kill, (os.getpid(), signal.SIGINT))
    timer.start()
    assert stop.wait(30.0) is True       # well before 30 s: woken by the signal
    timer.join()
    assert stop.is_set()
    assert tuple(signal.getsignal(s) for s in SIGNALS) == (signal.SIG_IGN, signal.SIG_IGN)
    os.kill(os.getpid(), signal.SIGTERM)  # ignored: the test process lives on


def test_signals_are_ignored_before_the_stop_is_set(handlers_restored):
    """A second signal arriving while the first is handled must not run the handler
    again: the handler ignores both signals before it sets the request."""
    stop = stop_on_signals()
    seen = []
    original = stop.set

    def set_and_look():
        seen.append(tuple(signal.getsignal(s) for s in SIGNALS))
        original()

    stop.set = set_and_look
    signal.getsignal(signal.SIGTERM)(signal.SIGTERM, None)
    assert stop.is_set()
    assert seen == [(signal.SIG_IGN, signal.SIG_IGN)]
