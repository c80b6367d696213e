#!/usr/bin/env python3
"""The picture of the tutorial "Design an arm for a job" (doc/images/design.png): the
tutorial's task (its YAML block), searched as its command does (``hrdf design task.yaml``:
the default budget, on 2 workers), drawn by ``hrdf design --plot``.

Usage (from the repository root, after ``make env`` installed the design and plot
extras):
    .venv/bin/python scripts/design_picture.py              # the picture of the docs
    .venv/bin/python scripts/design_picture.py -o out.png --evaluations 40

Exit code 0 when the picture was written.
"""
from __future__ import annotations

import argparse
import os
import re
import sys

import yaml

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, REPO)

from hrdf_ros.cli.design_plot import plot_design  # noqa: E402
from hrdf_ros.design import design_arm, task  # noqa: E402

PAGE = os.path.join(REPO, 'doc', 'tutorials', 'design.md')


def tutorial_task() -> dict:
    """The task file of the tutorial (its one YAML block)."""
    text = open(PAGE, encoding='utf-8').read()
    [block] = re.findall(r'^```yaml\n(.*?)^```', text, re.M | re.S)
    return yaml.safe_load(block)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('-o', '--output',
                        default=os.path.join(REPO, 'doc', 'images', 'design.png'))
    parser.add_argument('--evaluations', type=int, default=None)
    args = parser.parse_args(argv)
    job = task(tutorial_task())
    result = design_arm(job, evaluations=args.evaluations, workers=2)
    plot_design(result, job, args.output)
    return 0


if __name__ == '__main__':
    sys.exit(main())
