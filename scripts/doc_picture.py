"""The command line shared by the scripts that draw the documentation's pictures.

In: a drawing function ``draw(path)`` and the picture's file name in doc/images.
Out: ``main(argv)``: ``-o/--output PATH`` (default doc/images/<name>), the folder made if
needed, the picture written, its path printed; returns the exit code 0.
"""
from __future__ import annotations

import argparse
import os
from typing import Callable, List, Optional

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def picture_main(draw: Callable[[str], None], name: str, description: str,
                 argv: Optional[List[str]] = None) -> int:
    """Parse ``-o``, draw the picture there (default ``doc/images/<name>``), print its path."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument('-o', '--output', default=os.path.join(REPO, 'doc', 'images', name))
    args = parser.parse_args(argv)
    os.makedirs(os.path.dirname(os.path.abspath(args.output)), exist_ok=True)
    draw(args.output)
    print(args.output)
    return 0
