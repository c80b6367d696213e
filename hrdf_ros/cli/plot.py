"""``hrdf plan --plot``: a trajectory's positions, velocities and accelerations against
time, as joint_trajectory_controller plays it, with the limits drawn in.

In: a :class:`~hrdf_ros.motion.trajectory.JointTrajectory` and (n,) velocity and
acceleration limits (rad/s, rad/s^2, scaled). Out: a PNG (matplotlib, the ``plot`` extra,
imported here only, with the Agg backend: no screen needed).
"""
from __future__ import annotations

import numpy as np

from ..motion.trajectory import JointTrajectory, playback


def plot_trajectory(trajectory: JointTrajectory, velocity_limits: np.ndarray,
                    acceleration_limits: np.ndarray, path: str) -> None:
    """Write the three panels (module docstring) to ``path``.

    Raises:
        ImportError: matplotlib missing. OSError: the file cannot be written.
    """
    import matplotlib  # noqa: PLC0415 - the plot extra, on use
    matplotlib.use('Agg')
    from matplotlib import pyplot  # noqa: PLC0415
    times, positions = playback(trajectory, 1000.0)
    h = np.diff(times)[:, None]
    velocities = np.diff(positions, axis=0) / h
    accelerations = np.diff(velocities, axis=0) / h[1:]
    figure, axes = pyplot.subplots(3, 1, sharex=True, figsize=(8, 8), dpi=100)
    colours = pyplot.rcParams['axes.prop_cycle'].by_key()['color']
    for k, name in enumerate(trajectory.joint_names):
        colour = colours[k % len(colours)]
        axes[0].plot(times, positions[:, k], color=colour, label=name)
        axes[0].plot(trajectory.time_from_start, trajectory.positions[:, k], '.',
                     color=colour, markersize=4)
        axes[1].plot(times[1:], velocities[:, k], color=colour)
        axes[2].plot(times[1:-1], accelerations[:, k], color=colour)
        for axis, limit in ((axes[1], velocity_limits[k]), (axes[2], acceleration_limits[k])):
            axis.axhline(limit, color=colour, linestyle='--', linewidth=0.8)
            axis.axhline(-limit, color=colour, linestyle='--', linewidth=0.8)
    axes[0].set_ylabel('position (rad, m)')
    axes[1].set_ylabel('velocity (rad/s)')
    axes[2].set_ylabel('acceleration (rad/s$^2$)')
    axes[2].set_xlabel('time (s), as joint_trajectory_controller plays it (points: the '
                       "trajectory's; dashed: the limits)")
    axes[0].legend(loc='upper right', fontsize='small', ncol=2)
    axes[0].set_title(f'{trajectory.duration:.3f} s, {len(trajectory.time_from_start)} points')
    figure.tight_layout()
    try:
        figure.savefig(path)
    finally:
        pyplot.close(figure)
