"""``hrdf design --plot``: the best arm and the search at a glance.

In: a :class:`~hrdf_ros.design.search.DesignResult` and its task. Out: a PNG of two
panels: left, in 3D (m, the mount frame), the best design drawn at each target's
configuration (its output frames' origins joined, base to end effector) with the targets
(met: filled, missed: hollow) and the tip axis or z axis where the target has one;
right, every design evaluated, mass (kg) against its worst effort ratio (designs that
reach no target are left out), those that meet the task apart from the rest, the best
marked. matplotlib (the ``plot`` extra) with the Agg backend.
"""
from __future__ import annotations

import numpy as np


def arm_points(evaluation):
    """(targets, frames + 1, 3) m: the mount, then the output frames' origins of the
    design at each target's configuration."""
    from ..kinematics import Kinematics                              # noqa: PLC0415
    kinematics = Kinematics(evaluation.design.model(), kinematics='numpy')
    frames = kinematics.frames('output', evaluation.configurations)[..., :3, 3]
    mount = np.zeros((len(frames), 1, 3))
    return np.concatenate([mount, frames], axis=1)


def plot_design(result, job, path: str) -> None:
    """Write the two panels (module docstring) to ``path``.

    Raises:
        ImportError: matplotlib missing. OSError: the file cannot be written.
    """
    import matplotlib  # noqa: PLC0415 - the plot extra, on use
    matplotlib.use('Agg')
    import matplotlib.pyplot as plt  # noqa: PLC0415
    best = result.best[0]
    figure = plt.figure(figsize=(12, 5.5))
    arm = figure.add_subplot(1, 2, 1, projection='3d')
    for k, points in enumerate(arm_points(best)):
        arm.plot(points[:, 0], points[:, 1], points[:, 2], '-o', markersize=2,
                 linewidth=1.2, color=f'C{k % 10}')
    for k, target in enumerate(job.targets):
        p = target.position
        arm.scatter(*p, s=40, marker='o', color=f'C{k % 10}',
                    facecolors=f'C{k % 10}' if best.met[k] else 'none')
        if target.orientation != 'none':
            z = target.pose[:3, 2] * 0.06
            arm.quiver(*p, *z, color=f'C{k % 10}', linewidth=1)
    everything = np.concatenate([arm_points(best).reshape(-1, 3),
                                 np.array([t.position for t in job.targets])])
    centre, half = everything.mean(axis=0), np.ptp(everything, axis=0).max() / 2 + 0.05
    arm.set_xlim(centre[0] - half, centre[0] + half)
    arm.set_ylim(centre[1] - half, centre[1] + half)
    arm.set_zlim(centre[2] - half, centre[2] + half)
    arm.set_xlabel('x (m)')
    arm.set_ylabel('y (m)')
    arm.set_zlabel('z (m)')
    arm.set_title(f'best: {best.mass:.3f} kg, {len(best.design.actuators)} actuators, '
                  f'{int(best.met.sum())}/{len(best.met)} targets met', fontsize=10)
    scatter = figure.add_subplot(1, 2, 2)
    rows = [(e.mass, e.worst_effort_ratio, e.meets) for e in result.evaluations
            if e.reached.any()]
    if rows:
        mass, ratio, meets = (np.array(c) for c in zip(*rows))
        scatter.scatter(ratio[~meets], mass[~meets], s=10, alpha=0.5, color='0.6',
                        label='misses a target or an effort')
        scatter.scatter(ratio[meets], mass[meets], s=14, color='C2', label='meets the task')
    scatter.scatter([best.worst_effort_ratio], [best.mass], s=120, marker='*', color='C3',
                    label='best', zorder=3)
    scatter.axvline(1.0, color='0.3', linewidth=0.8, linestyle='--')
    scatter.set_xlabel('worst effort ratio (effort / rated effort, less the margin)')
    scatter.set_ylabel('mass (kg)')
    scatter.set_title(f'{len(result.evaluations)} designs evaluated', fontsize=10)
    scatter.legend(fontsize=8, loc='upper right')
    figure.tight_layout()
    figure.savefig(path, dpi=110)
    plt.close(figure)
