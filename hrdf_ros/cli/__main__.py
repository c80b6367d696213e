"""``python -m hrdf_ros.cli``: the ``hrdf`` command (see :mod:`hrdf_ros.cli`)."""
import sys

from .main import main

sys.exit(main())
