"""Who moves the arm: the servo or ``~/move_to``, one at a time.

In: claims and releases from the node's servo (:mod:`.servo_interface`) and its
``~/move_to`` action (:mod:`.move_to`), from any thread. Out: whether a claim holds, and
when it does not, the reason to give the one refused (a line naming who has the arm and
how to get it back).
"""
from __future__ import annotations

import threading
from typing import Optional

#: What each owner is called in the reasons, and how the arm is taken from it.
OWNERS = {
    'servo': ('the servo is moving the arm', 'pause it (~/pause_servo) or stop '
                                             'commanding it: it owns the arm until it '
                                             'comes to rest'),
    'move_to': ('a ~/move_to goal is moving the arm', 'cancel that goal or wait for it '
                                                      'to end'),
}


class ArmOwner:
    """The one owner of the arm at a time (thread-safe)."""

    def __init__(self):
        self._lock = threading.Lock()
        self._owner: Optional[str] = None

    @property
    def owner(self) -> Optional[str]:
        """``'servo'``, ``'move_to'`` or None."""
        return self._owner

    def claim(self, who: str) -> Optional[str]:
        """Take the arm for ``who`` (a key of :data:`OWNERS`); None when it holds (also when
        ``who`` has it already), else the reason it is refused.

        Raises:
            ValueError: an unknown owner.
        """
        if who not in OWNERS:
            raise ValueError(f'unknown owner of the arm: {who!r}')
        with self._lock:
            if self._owner in (None, who):
                self._owner = who
                return None
            busy, remedy = OWNERS[self._owner]
            return f'{busy}: {remedy}'

    def release(self, who: str) -> None:
        """Give the arm back if ``who`` has it (else nothing)."""
        with self._lock:
            if self._owner == who:
                self._owner = None
