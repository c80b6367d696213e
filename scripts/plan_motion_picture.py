#!/usr/bin/env python3
"""The plot of the tutorial "Plan a motion" (doc/images/plan_motion.png), made by the
tutorial's own command.

Usage (from the repository root, after ``make env`` installed the motion and plot extras):
    .venv/bin/python scripts/plan_motion_picture.py             # the picture of the docs
    .venv/bin/python scripts/plan_motion_picture.py -o out.png

Reads doc/tutorials/plan_motion.md: its YAML block (the collision objects, written to a
temporary ``objects.yaml``) and its ``hrdf plan ... --plot plan.png`` command line, and
runs that command as the page shows it, from the repository root, with the picture's path
in place of ``plan.png``. The planner is seeded and bounded by counts, so each run draws the
same way around the post. Exit code: the command's (0 when the picture was written).
"""
from __future__ import annotations

import argparse
import os
import re
import shlex
import subprocess
import sys
import tempfile

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TUTORIAL = os.path.join(REPO, 'doc', 'tutorials', 'plan_motion.md')


def _block(page: str, language: str, containing: str) -> str:
    """The first fenced block of ``language`` that contains ``containing``."""
    for body in re.findall(rf'```{language}\n(.*?)```', page, flags=re.S):
        if containing in body:
            return body
    raise SystemExit(f'{TUTORIAL}: no {language} block with {containing!r}')


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('-o', '--output',
                        default=os.path.join(REPO, 'doc', 'images', 'plan_motion.png'))
    args = parser.parse_args(argv)
    page = open(TUTORIAL, encoding='utf-8').read()
    objects = _block(page, 'yaml', 'type:')
    line = next(line for line in _block(page, 'bash', '--plot').splitlines()
                if line.startswith('hrdf plan ') and '--plot' in line)
    words = shlex.split(line)
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, 'objects.yaml')
        with open(path, 'w', encoding='utf-8') as stream:
            stream.write(objects)
        words = [path if w == 'objects.yaml' else os.path.abspath(args.output)
                 if w == 'plan.png' else w for w in words]
        hrdf = os.path.join(os.path.dirname(sys.executable), 'hrdf')
        return subprocess.run([hrdf] + words[1:], cwd=REPO, check=False).returncode


if __name__ == '__main__':
    sys.exit(main())
