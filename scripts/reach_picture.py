#!/usr/bin/env python3
"""The picture of the tutorial "Choose an arm: reach and payload" (doc/images/reach.png):
two HEBI kits side by side, the 6-DoF A-2085-06 and the 7-DoF A-2099-07 (HEBI's kit
HRDFs, as hebi_description's config/arms/hrdf ships them; here from ../shared/hrdf/kits),
each with its reachability index and payload on the vertical plane through the base.

Usage (from the repository root, after ``make env`` installed the plot extra):
    .venv/bin/python scripts/reach_picture.py              # the picture of the docs
    .venv/bin/python scripts/reach_picture.py -o out.png --voxel 0.1

The maps are ``hrdf_ros.reach_map`` at ``--voxel`` (default 0.05 m) and 50 tool
directions, as ``hrdf reach`` makes them (compiled path where installed, 2 threads).
Exit code 0 when the picture was written.
"""
from __future__ import annotations

import argparse
import os
import sys

import numpy as np

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
KITS = os.path.normpath(os.path.join(REPO, '..', 'shared', 'hrdf', 'kits'))
sys.path.insert(0, REPO)

from hrdf_ros import load, reach_map  # noqa: E402
from hrdf_ros.cli.reach_plot import plane_image  # noqa: E402

ARMS = (('A-2085-06', '6-DoF X-series arm'), ('A-2099-07', '7-DoF X-series arm'))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('-o', '--output',
                        default=os.path.join(REPO, 'doc', 'images', 'reach.png'))
    parser.add_argument('--voxel', type=float, default=0.05)
    args = parser.parse_args(argv)
    import matplotlib
    matplotlib.use('Agg')
    from matplotlib import pyplot
    maps = [reach_map(load(os.path.join(KITS, name + '.hrdf')), voxel=args.voxel,
                      directions=50, threads=2) for name, _ in ARMS]
    top = max(float(np.quantile(m.payload[m.reachable], 0.99)) for m in maps)
    figure, axes = pyplot.subplots(2, 2, figsize=(11, 9.5), dpi=80)
    for column, ((name, what), result) in enumerate(zip(ARMS, maps)):
        for row, (field, label, unit, vmax) in enumerate((
                ('reachability', 'reachability index', 'share of 50 tool directions', 1.0),
                ('payload', 'payload', 'kg (rated efforts)', top))):
            ax = axes[row, column]
            value = np.minimum(np.asarray(getattr(result, field), dtype=float), vmax)
            image, extent = plane_image(result, 1, 0, value)
            shown = ax.imshow(image, origin='lower', extent=extent, cmap='viridis', vmin=0,
                              vmax=vmax, interpolation='nearest')
            volume = (result.reachability >= 0.5).sum() * result.voxel ** 3
            ax.set_title(f'{name} ({what}): {label}\nindex >= 0.5 in {volume:.2f} m^3'
                         if row == 0 else f'{name}: {label}, median '
                         f'{np.median(result.payload[result.reachable]):.1f} kg', fontsize=10)
            ax.set_xlabel('x (m)')
            ax.set_ylabel('z (m)')
            ax.set_aspect('equal')
            figure.colorbar(shown, ax=ax, label=unit, shrink=0.85)
    figure.suptitle(f'Vertical plane y = 0 through the base; {args.voxel:g} m voxels',
                    fontsize=11)
    figure.tight_layout()
    figure.savefig(args.output)
    print(args.output)
    return 0


if __name__ == '__main__':
    sys.exit(main())
