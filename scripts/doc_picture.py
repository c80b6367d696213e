"""The command line shared by the scripts that draw the documentation's pictures.

In: a drawing function ``draw()`` returning a matplotlib figure, and the picture's file
name in doc/images. Out: ``-o/--output PATH`` parsed (default doc/images/<name>), the
folder made if needed, the figure written borderless at 110 dpi without axes and closed,
its path printed; exit code 0. matplotlib runs on its Agg backend (no screen).
"""
from __future__ import annotations

import argparse
import os
from typing import Callable, List, Optional

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def picture_main(draw: Callable[[], object], name: str, description: str,
                 argv: Optional[List[str]] = None) -> int:
    """Parse ``-o``, draw the figure and save it there (default ``doc/images/<name>``),
    print its path; returns 0."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument('-o', '--output', default=os.path.join(REPO, 'doc', 'images', name))
    args = parser.parse_args(argv)
    os.makedirs(os.path.dirname(os.path.abspath(args.output)), exist_ok=True)
    import matplotlib
    matplotlib.use('Agg')
    import matplotlib.pyplot as plt
    fig = draw()
    for ax in fig.axes:
        ax.set_axis_off()
    fig.subplots_adjust(left=0, right=1, top=1, bottom=0)
    fig.savefig(args.output, dpi=110)
    plt.close(fig)
    print(args.output)
    return 0
