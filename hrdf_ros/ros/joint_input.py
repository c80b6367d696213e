"""joint_states hygiene: from (names, positions, stamp) to a joint-position vector.

Rules (the node's documented behaviour; every rejected message is counted by reason and
changes nothing):

* ``empty``: no names. ``length mismatch``: names and positions differ in length.
* ``duplicate joint``: a name of this robot appears twice in one message.
* ``non-finite``: NaN or +-inf for one of this robot's joints (the whole message is
  dropped, so no frame is ever computed from a partial, inconsistent update).
* ``out of order``: unless ``ignore_timestamp``, a stamp older than the newest accepted
  one (a zero stamp means "now" and is always in order).
* ``no known joint``: only other robots' joints; not a warning, several robots may share
  one joint_states topic.

Names this robot does not have are skipped and reported once each (at most
:data:`MAX_REPORTED_UNKNOWN` distinct names are remembered, so hostile input cannot grow
memory). Joints of this robot absent from an accepted message keep their last position
(``missing_joints='last'``, the default, as robot_state_publisher) or are set to 0
(``missing_joints='zero'``). Before any message, every position is 0.

Parallel grippers: their finger joints are read like the others but always keep their
last position when absent (an arm and its gripper often publish apart); their mimic
joints (``ignored``), which joint_state_publisher publishes too, are accepted and not
read: the node computes them from the finger joint.
"""
from __future__ import annotations

import math
from collections import Counter
from typing import List, Optional, Sequence, Tuple

import numpy as np

#: Distinct unknown joint names remembered for "warn once" (then warned in aggregate).
MAX_REPORTED_UNKNOWN = 64

MISSING_JOINT_POLICIES = ('last', 'zero')


class JointInput:
    """The joint-position state of one robot, updated from joint_states messages.

    Args:
        joint_names: this robot's joint names, in joint-position order.
        missing_joints: ``'last'`` or ``'zero'`` (see the module docstring).
        ignore_timestamp: accept messages whatever their stamp order.
        kept: how many of the last ``joint_names`` (grippers' finger joints) keep their
            last position when absent, whatever ``missing_joints``.
        ignored: joint names accepted in messages but not read (mimic joints).

    Raises:
        ValueError: for an unknown ``missing_joints`` policy.
    """

    def __init__(self, joint_names: Sequence[str], missing_joints: str = 'last',
                 ignore_timestamp: bool = False, kept: int = 0,
                 ignored: Sequence[str] = ()):
        if missing_joints not in MISSING_JOINT_POLICIES:
            raise ValueError(f"missing_joints must be one of {', '.join(MISSING_JOINT_POLICIES)}"
                             f", got '{missing_joints}'")
        self.index = {name: k for k, name in enumerate(joint_names)}
        self._names = list(joint_names)
        self._ignored = frozenset(ignored)
        #: the joints other than the kept ones (an arm's joint_states without its gripper)
        self._head = self._names[:len(self._names) - kept]
        self._kept = kept
        self.missing_joints = missing_joints
        self.ignore_timestamp = ignore_timestamp
        #: latest accepted positions (rad or m) as Python floats, joint order (the
        #: node's hot path reads these; :attr:`positions` is the same as an array)
        self.values: List[float] = [0.0] * len(self.index)
        #: True once a message has been accepted.
        self.received = False
        #: stamp (ns) of the newest accepted message with a non-zero stamp.
        self.last_stamp_ns = -1
        #: rejected messages by reason, since start.
        self.rejected: Counter = Counter()
        self.accepted = 0
        self._reported_unknown: set = set()
        self._unknown_overflow = False
        self._plan_names: Optional[List[str]] = None
        self._plan_cache: Tuple[np.ndarray, np.ndarray, bool] = (
            np.zeros(0, int), np.zeros(0, int), False)

    @property
    def positions(self) -> np.ndarray:
        """(dof,) latest accepted positions (rad or m), a new array."""
        return np.array(self.values, dtype=float)

    def carry_over(self, previous: 'JointInput') -> None:
        """Take over another robot model's state on a reload: the positions of joints
        with the same name (others 0), the newest stamp and the counters."""
        if previous.received:
            old = dict(zip(previous._names, previous.values))
            self.values = [old.get(n, 0.0) for n in self._names]
            self.received = True
        self.last_stamp_ns = previous.last_stamp_ns
        self.rejected = previous.rejected
        self.accepted = previous.accepted

    def update(self, names: Sequence[str], positions: Sequence[float], stamp_ns: int
               ) -> Optional[str]:
        """Apply one message; returns None when accepted, else the rejection reason.

        Args:
            names: joint names of the message.
            positions: positions (rad or m), same length as ``names``.
            stamp_ns: header stamp in ns (0: unstamped).
        """
        head = self._kept and names == self._head
        if (names == self._names or head) and len(positions) == len(names):
            # Fast path, the common case: every joint (or all but the grippers), in this
            # robot's order, in plain Python (no numpy call). A sum is finite when every
            # term is (the exact check runs only when it is not).
            reason = None
            if not math.isfinite(sum(positions)) and not all(map(math.isfinite, positions)):
                reason = 'non-finite'
            elif not self._in_order(stamp_ns):
                reason = 'out of order'
            else:
                updated = list(map(float, positions))
                if head:
                    updated += self.values[len(names):]
        else:
            reason, updated = self._general(names, positions, stamp_ns)
        if reason is not None:
            self.rejected[reason] += 1
            return reason
        self.values = updated
        self.received = True
        self.accepted += 1
        if stamp_ns:
            self.last_stamp_ns = max(self.last_stamp_ns, stamp_ns)
        return None

    def _plan(self, names: Sequence[str]) -> Tuple[np.ndarray, np.ndarray, bool]:
        """(message indices of known joints, their joint indices, a name repeated) for a
        list of names; the last one is kept, as publishers repeat the same list."""
        if names != self._plan_names:
            known = [(i, self.index[name]) for i, name in enumerate(names)
                     if name in self.index]
            self._plan_cache = (np.array([i for i, _ in known], dtype=int),
                                np.array([k for _, k in known], dtype=int),
                                len({k for _, k in known}) != len(known))
            self._plan_names = list(names)
        return self._plan_cache

    def _general(self, names, positions, stamp_ns) -> Tuple[Optional[str], List[float]]:
        """(rejection reason or None, new positions) for any other message."""
        if not names:
            return 'empty', None
        if len(names) != len(positions):
            return 'length mismatch', None
        source, target, repeated = self._plan(names)
        if not len(source):
            return 'no known joint', None
        if repeated:
            return 'duplicate joint', None
        values = np.asarray(positions, dtype=float)[source]
        if not all(map(math.isfinite, values.tolist())):
            return 'non-finite', None
        if not self._in_order(stamp_ns):
            return 'out of order', None
        updated = self.positions
        if self.missing_joints == 'zero':
            updated[:len(updated) - self._kept] = 0.0
        updated[target] = values
        return None, updated.tolist()

    def _in_order(self, stamp_ns: int) -> bool:
        return self.ignore_timestamp or not stamp_ns or stamp_ns >= self.last_stamp_ns

    def new_unknown_names(self, names: Sequence[str]) -> List[str]:
        """Names of the message this robot does not have and that were not reported
        before (bounded memory). Returns ``['...']`` once when the bound is reached."""
        if names == self._names or (self._kept and names == self._head):
            return []
        fresh = []
        for name in names:
            if name in self.index or name in self._reported_unknown or name in self._ignored:
                continue
            if len(self._reported_unknown) >= MAX_REPORTED_UNKNOWN:
                if not self._unknown_overflow:
                    self._unknown_overflow = True
                    fresh.append('...')
                break
            self._reported_unknown.add(name)
            fresh.append(name)
        return fresh
