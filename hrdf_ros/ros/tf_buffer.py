"""A minimal TF buffer: latest transform per child frame, chained on lookup.

tf2_ros is not installable from PyPI, so the demo and the integration tests use this to
chain ``/tf`` and ``/tf_static`` messages. It keeps only the latest transform per child
(no time travel or interpolation).
"""
from __future__ import annotations

from typing import Dict, Tuple

import numpy as np

from .tf_messages import from_transform_msg


class TfBuffer:
    """Latest parent -> child transforms, looked up as chains."""

    def __init__(self):
        self._edges: Dict[str, Tuple[str, np.ndarray]] = {}

    def add_message(self, tf_message) -> None:
        """Record every transform of a ``tf2_msgs/TFMessage``."""
        for t in tf_message.transforms:
            self._edges[t.child_frame_id] = (t.header.frame_id, from_transform_msg(t))

    def frames(self):
        """Every frame id seen, as child or parent (sorted)."""
        return sorted(set(self._edges) | {parent for parent, _ in self._edges.values()})

    def __contains__(self, frame: str) -> bool:
        return frame in self._edges

    def lookup(self, target: str, source: str) -> np.ndarray:
        """(4, 4) pose of frame ``source`` in frame ``target`` (``target`` must be an
        ancestor of ``source``).

        Raises:
            KeyError: when the chain from ``source`` up to ``target`` is incomplete.
        """
        for frame, pose in self._chain(source):
            if frame == target:
                return pose
        raise KeyError(f'no transform to "{frame}" (looking for "{target}")')

    def root_pose(self, frame: str):
        """``(root, pose)``: the top frame of ``frame``'s chain and ``frame``'s (4, 4) pose
        in it (``frame`` itself and the identity when it has no parent here).

        Raises:
            KeyError: a loop in the chain.
        """
        *_, top = self._chain(frame)
        return top

    def _chain(self, source: str):
        """``(frame, pose of source in frame)`` from ``source`` itself up to the top of
        its chain.

        Raises:
            KeyError: a loop in the chain.
        """
        pose, frame = np.eye(4), source
        for _ in range(len(self._edges) + 1):
            yield frame, pose
            if frame not in self._edges:
                return
            parent, transform = self._edges[frame]
            pose, frame = transform @ pose, parent
        raise KeyError(f'TF loop above "{source}"')
