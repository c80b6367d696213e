"""Joint position limits given by the user (the HRDF carries none)."""
from __future__ import annotations

from typing import Dict, Tuple

import yaml


def read_limits(path: str) -> Dict[str, Tuple[float, float]]:
    """Joint position limits from a YAML file ``{joint: [lower, upper]}`` (rad or m).

    Raises:
        OSError: when the file cannot be read.
        ValueError: when it is not such a mapping of finite numbers.
    """
    with open(path, encoding='utf-8') as handle:
        try:
            data = yaml.safe_load(handle)
        except yaml.YAMLError as exc:
            raise ValueError(f'{path}: not YAML ({exc})') from None
    if not isinstance(data, dict):
        raise ValueError(f'{path}: expected a mapping joint: [lower, upper]')
    limits = {}
    for joint, value in data.items():
        if (not isinstance(value, (list, tuple)) or len(value) != 2
                or not all(isinstance(v, (int, float)) and not isinstance(v, bool)
                           for v in value)):
            raise ValueError(f'{path}: {joint}: expected [lower, upper], got {value!r}')
        limits[str(joint)] = (float(value[0]), float(value[1]))
    return limits
