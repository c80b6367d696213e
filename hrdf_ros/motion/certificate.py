"""What a certified check proved: per piece free or refused, and why
(:class:`Certificate`, the result of :meth:`.certified.Certifier.certify`).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

import numpy as np


@dataclass
class Certificate:
    """What :meth:`~.certified.Certifier.certify` proved.

    Attributes:
        free: (K,) bool, each piece proven free of collision (after a refusal with
            ``stop_at_first``, the pieces from the refused one on read False, unproven).
        refused: the first refused piece, or -1.
        found_row: the row (:attr:`~.clearance.Clearance.pairs`) that refused it, or -1
            (:attr:`row` finds it for a state in collision).
        touching: that row touches or intersects at a checked state (else it came within
            :data:`~.certified.MIN_MOTION` / 2 of touching, unproven).
        state: (dof,) the checked state of the refusal nearest to touching, or None.
        proven_at_once: pieces proven without being cut.
        parts: parts of pieces tried after cuts.
        states: states whose bounds were computed.
        exact: exact distances computed (hpp-fcl calls).
    """

    free: np.ndarray
    refused: int = -1
    found_row: int = -1
    touching: bool = False
    state: Optional[np.ndarray] = None
    proven_at_once: int = 0
    parts: int = 0
    states: int = 0
    exact: int = 0
    colliding_row: Optional[object] = None

    @property
    def row(self) -> int:
        """The row that refused the first refused piece (-1: none); for a state found in
        collision, the first row the scene finds colliding there (asked on first use)."""
        if self.found_row < 0 and self.state is not None and self.colliding_row is not None:
            self.found_row = int(self.colliding_row(self.state))
            self.colliding_row = None
        return self.found_row
