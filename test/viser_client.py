"""A second client of a viser server, sending what a browser sends when a user drags a
transform gizmo (viser 1.1.1's client -> server messages: drag start, pose updates, drag
end; msgpack, viser's own message classes), so that tests move ``hrdf view``'s handles as
a drag does while the page is open in chromium. What the server sends back is decoded
(viser's wire format: two 8-byte sizes, then zstd-compressed msgpack) only as far as the
types of its messages, each window stamped with its arrival time (:attr:`windows`), and
the fields GUI updates set (:attr:`updates`: what the server holds once it has
broadcast them, e.g. a value the page chose).
"""
from __future__ import annotations

import threading
import time
from typing import Dict, List, Sequence, Tuple

import msgspec
import viser
import websockets.sync.client
import zstandard

from hrdf_ros.kinematics.rotations import rotation_to_quaternion


class ViserClient:
    """Connected to the page at ``url`` (``http://127.0.0.1:PORT/``) until :meth:`close`."""

    def __init__(self, url: str):
        self._socket = websockets.sync.client.connect(
            url.replace('http://', 'ws://', 1), subprotocols=[f'viser-v{viser.__version__}'],
            max_size=None, open_timeout=60)
        #: (monotonic time, message types) of each window the server sent
        self.windows: List[Tuple[float, List[str]]] = []
        #: the ``updates`` of each GuiUpdateMessage the server sent, in order
        self.updates: List[Dict] = []
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        decompressor = zstandard.ZstdDecompressor()
        try:
            for raw in self._socket:
                size = int.from_bytes(raw[0:8], 'little')
                compressed = int.from_bytes(raw[8:16], 'little')
                window = msgspec.msgpack.decode(
                    decompressor.decompress(raw[16:16 + compressed], max_output_size=size))
                self.updates.extend(m.get('updates', {}) for m in window['messages']
                                    if m['type'] == 'GuiUpdateMessage')
                self.windows.append((time.monotonic(),
                                     [m['type'] for m in window['messages']]))
        except Exception:  # noqa: BLE001 - closed: nothing more to read
            pass

    def _send(self, kind: str, **fields) -> None:
        self._socket.send(msgspec.msgpack.encode({'type': kind, 'owner': '', **fields}))

    def start(self, name: str) -> None:
        """A drag of gizmo ``name`` begins."""
        self._send('TransformControlsDragStartMessage', name=name)

    def move(self, name: str, pose: Sequence) -> None:
        """The gizmo is at ``pose`` ((4, 4), m, in its parent frame)."""
        x, y, z, w = (float(v) for v in rotation_to_quaternion(pose[:3, :3]))
        self._send('TransformControlsUpdateMessage', name=name, wxyz=[w, x, y, z],
                   position=[float(v) for v in pose[:3, 3]])

    def end(self, name: str) -> None:
        """The drag ends."""
        self._send('TransformControlsDragEndMessage', name=name)

    def drag(self, name: str, pose: Sequence) -> None:
        """A whole drag to ``pose``."""
        self.start(name)
        self.move(name, pose)
        self.end(name)

    def close(self) -> None:
        self._socket.close()
