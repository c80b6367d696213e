"""The libraries of the ``motion`` extra, imported when first needed.

In: a module name. Out: the module, or one ``ImportError`` that names the extra to install
(``pip install 'hrdf_ros[motion]'``; ``make env`` installs it). The extra: Pinocchio
(``pin``: the collision checks, in C++), OMPL (``ompl``: sampling-based planning, MoveIt's
planner library) and TOPP-RA (``toppra``: time-optimal parameterization of paths).
"""
from __future__ import annotations

import importlib

#: The install line every missing-library message gives.
MOTION_HINT = "pip install 'hrdf_ros[motion]'"
#: module -> the PyPI distribution that provides it.
DISTRIBUTIONS = {'pinocchio': 'pin', 'ompl': 'ompl', 'toppra': 'toppra'}


def require(module: str):
    """The imported ``module`` of the motion extra.

    Raises:
        ImportError: it is not installed (the message names the extra and the
            distribution).
    """
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise ImportError(f'motion planning needs {DISTRIBUTIONS.get(module, module)} '
                          f'(the motion extra): {MOTION_HINT} ({exc})') from None
