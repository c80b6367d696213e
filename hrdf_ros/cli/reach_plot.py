"""``hrdf reach --plot``: a reach map's heat maps.

In: a :class:`~hrdf_ros.reach.result.ReachMap` and its model. Out: a PNG of two rows of
three panels: the reachability index (share of the tool directions solved, 0 to 1), the
payload (kg) and the manipulability (Yoshikawa's measure, m^3 for a 6-row Jacobian), on
the vertical plane y = 0 of the reference frame (through the base) and on the
horizontal plane at the shoulder (the lattice layer nearest the second joint's output
frame at zero positions, on that joint's axis); each panel with its colour bar, axes in
m. Points not reachable are blank. matplotlib (the ``plot`` extra) with the Agg backend.
"""
from __future__ import annotations

import numpy as np

from ..kinematics import Kinematics
from ..model import RobotModel

#: (field, panel title, colour bar label)
QUANTITIES = (('reachability', 'reachability index', 'share of tool directions'),
              ('payload', 'payload', 'kg'),
              ('manipulability', 'manipulability', 'sqrt(det(J J^T)), m^3'))


def shoulder_height(model: RobotModel, index: int = 0) -> float:
    """m: the height of the second joint of the end effector's chain (its output frame
    at zero positions), or of the first when the chain has one joint."""
    kin = Kinematics(model, kinematics='numpy')
    chain = kin.end_effector_joints(index)
    if not len(chain):
        return 0.0
    first_output = np.cumsum([0] + [len(e.outputs) for e in model.elements])
    element = model.dof_elements[chain[min(1, len(chain) - 1)]]
    return float(kin.frames('output', np.zeros(model.dof_count))[first_output[element], 2, 3])


def plane_image(result, axis: int, layer: int, value: np.ndarray):
    """(image (rows, columns), extent (m) for matplotlib's ``imshow``) of ``value`` (M,)
    at the reachable centres of the lattice layer ``layer`` (an integer k) across
    ``axis`` (0 x, 1 y, 2 z); NaN elsewhere."""
    k = np.rint(result.centers / result.voxel).astype(np.int64)
    keep = (k[:, axis] == layer) & result.reachable
    u, v = [a for a in range(3) if a != axis]
    if not keep.any():
        return np.full((1, 1), np.nan), (0, 1, 0, 1)
    ku, kv = k[keep, u], k[keep, v]
    image = np.full((kv.max() - kv.min() + 1, ku.max() - ku.min() + 1), np.nan)
    image[kv - kv.min(), ku - ku.min()] = value[keep]
    h = result.voxel / 2
    extent = (ku.min() * result.voxel - h, ku.max() * result.voxel + h,
              kv.min() * result.voxel - h, kv.max() * result.voxel + h)
    return image, extent


def plot_reach(result, model: RobotModel, path: str, title: str = '') -> None:
    """Write the six panels (module docstring) to ``path``.

    Raises:
        ImportError: matplotlib missing. OSError: the file cannot be written.
    """
    import matplotlib  # noqa: PLC0415 - the plot extra, on use
    matplotlib.use('Agg')
    from matplotlib import pyplot  # noqa: PLC0415
    shoulder = int(np.rint(shoulder_height(model, result.end_effector) / result.voxel))
    planes = ((1, 0, 'vertical plane y = 0', 'x (m)', 'z (m)'),
              (2, shoulder, f'horizontal plane z = {shoulder * result.voxel:.2f} m '
                            '(shoulder)', 'x (m)', 'y (m)'))
    figure, axes = pyplot.subplots(2, 3, figsize=(15, 9.5), dpi=80)
    for column, (field, name, unit) in enumerate(QUANTITIES):
        value = np.array(getattr(result, field), dtype=float)
        top = result.scale_top(field)
        value = np.where(np.isinf(value), top, value)
        for row, (axis, layer, plane, x_label, y_label) in enumerate(planes):
            ax = axes[row, column]
            image, extent = plane_image(result, axis, layer, value)
            shown = ax.imshow(image, origin='lower', extent=extent, cmap='viridis',
                              vmin=0.0, vmax=max(top, 1e-12), interpolation='nearest')
            ax.set_title(f'{name}\n{plane}', fontsize=10)
            ax.set_xlabel(x_label)
            ax.set_ylabel(y_label)
            ax.set_aspect('equal')
            figure.colorbar(shown, ax=ax, label=unit, shrink=0.85)
    if title:
        figure.suptitle(f'{title}: {result.voxel:g} m voxels, {len(result.directions)} '
                        'tool directions', fontsize=11)
    figure.tight_layout()
    figure.savefig(path)
    pyplot.close(figure)
