"""The viser server of a robot view: bound where asked, quiet, nothing reaching outside.

In: host, port and a page title. Out: a started :class:`viser.ViserServer` with
the page's look (z up, a ground grid at z = 0 through the root link's origin, HEBI red
accents), its URL (:func:`page_url`), a camera framing the robot
(:func:`frame_camera`), and :func:`stop_server`.

* ``host`` defaults to 127.0.0.1 (this machine only); ``port`` 0 takes a free port, and
  a port in use is replaced by the next free one (viser's rule): the URL says which.
* Nothing leaves the machine: viser's share button (it tunnels the page through
  viser's public server) is hidden, and a share request sent anyway is refused; the web
  client ships inside the viser wheel (no CDN, fonts or maps are fetched).
* viser prints (with rich) a banner and a "Server stopped" line; both go nowhere here,
  and its other messages go to stderr, so a program's stdout stays its own (``hrdf
  view`` prints the URL first).
* :func:`stop_server` waits at most :data:`STOP_TIMEOUT` for viser's threads (daemon
  threads: they do not hold the process), so Ctrl-C ends a program promptly even while
  a browser is connected.
"""
from __future__ import annotations

import io
import math
import socket
import sys
import threading
from typing import Optional, Tuple

import numpy as np
import rich
import viser

#: HEBI's red (hebi_description's ``red`` material, 0.82 0.06 0.06), 0..255.
HEBI_RED = (209, 15, 15)
#: Vertical field of view of the initial camera, rad.
CAMERA_FOV = math.radians(50.0)
#: Direction from the robot's centre to the initial camera (x front-right, z up).
CAMERA_DIRECTION = np.array([1.6, -1.2, 0.9])
#: Seconds :func:`stop_server` waits for viser's threads.
STOP_TIMEOUT = 1.5


def _refuse_share_url(verbose: bool = True) -> None:
    """Replaces :meth:`viser.ViserServer.request_share_url`: never tunnel the page."""
    return None


def check_host(host: str) -> None:
    """Raise OSError unless ``host`` names an address of this machine (viser itself
    would retry the next port for ever).

    Raises:
        OSError: an unknown name, or an address that cannot be bound here.
    """
    family, kind, proto, _, address = socket.getaddrinfo(host, 0, type=socket.SOCK_STREAM)[0]
    with socket.socket(family, kind, proto) as probe:
        probe.bind(address)


def start_server(host: str = '127.0.0.1', port: int = 8080,
                 label: Optional[str] = None) -> 'viser.ViserServer':
    """A running viser server with the page's look (see the module docstring).

    Raises:
        OSError: the address cannot be bound (e.g. an unknown ``host``).
    """
    check_host(host)
    rich.reconfigure(file=io.StringIO())  # the banner
    try:
        server = viser.ViserServer(host=host, port=port, label=label, verbose=False)
    finally:
        rich.reconfigure(file=sys.stderr)
    server.request_share_url = _refuse_share_url
    server.gui.configure_theme(show_share_button=False, show_logo=False,
                               control_width='large', brand_color=HEBI_RED)
    server.scene.set_up_direction('+z')
    # Software WebGL (a robot computer without GPU, a headless browser) pays seconds for
    # shadows (each cascade draws the robot again) and for the environment map (its
    # prefiltering took 9 s per page load here): the default lights without shadows,
    # and a hemisphere light for the ambient part the environment map gave.
    server.scene.configure_default_lights(enabled=True, cast_shadow=False)
    server.scene.configure_environment_map(None)
    server.scene.add_light_hemisphere('/ambient', sky_color=(255, 255, 255),
                                      ground_color=(120, 120, 120), intensity=2.0)
    server.scene.add_grid('/grid', width=2.0, height=2.0, plane='xy', cell_size=0.1,
                          section_size=0.5)
    server.initial_camera.fov = CAMERA_FOV
    server.initial_camera.up = (0.0, 0.0, 1.0)
    return server


def page_url(server) -> str:
    """``http://<host>:<port>/`` of the page (a literal IPv6 host in brackets)."""
    host = server.get_host()
    if ':' in host:
        host = f'[{host}]'
    return f'http://{host}:{server.get_port()}/'


def camera_for(bounds: np.ndarray, fov: float = CAMERA_FOV,
               direction: np.ndarray = CAMERA_DIRECTION) -> Tuple[np.ndarray, np.ndarray]:
    """(position, look_at) of a camera that sees the whole box ``bounds`` ((2, 3), m):
    it looks at the box centre from ``direction``, far enough for the box's bounding
    sphere to fit the vertical field of view ``fov`` (rad) with a margin."""
    bounds = np.asarray(bounds, dtype=float)
    centre = bounds.mean(axis=0)
    radius = max(0.5 * float(np.linalg.norm(bounds[1] - bounds[0])), 0.05)
    distance = 1.15 * radius / math.sin(fov / 2)
    unit = np.asarray(direction, dtype=float) / np.linalg.norm(direction)
    return centre + distance * unit, centre


def frame_camera(server, bounds: Optional[np.ndarray]) -> None:
    """Point the camera at ``bounds``: the initial camera (new pages, "reset view") and
    the cameras of pages already open."""
    if bounds is None:
        return
    position, look_at = camera_for(bounds)
    server.initial_camera.look_at = tuple(look_at)
    server.initial_camera.position = tuple(position)
    for client in server.get_clients().values():
        client.camera.look_at = tuple(look_at)
        client.camera.position = tuple(position)


def stop_server(server, timeout: float = STOP_TIMEOUT) -> None:
    """Stop the server: its clients are disconnected, its threads end (at most
    ``timeout`` s is waited for them); viser's "Server stopped" line is dropped."""
    rich.reconfigure(file=io.StringIO())
    stopping = threading.Thread(target=server.stop, name='viser-stop', daemon=True)
    stopping.start()
    stopping.join(timeout)
