"""Robots that are not another robot in other files: HEBI publishes some robots twice
(``../shared/hrdf/real/flat`` and ``trees/`` hold the same igor, tgor, daisy and tready
files; the MAPS demos repeat the kits' 7-DoF Maggie and A-2303-06; robot-config's
A-2085-06 is the kit). A robot whose URDF is another's, byte for byte (the robot's name
and comments aside), gives every exporter and consumer the same input, so the output and
consumer tests run on the first of them only. The reader's tests still read every file
(test_real_files.py: each against hebi-py)."""
import functools
import hashlib
import re
from typing import List

from hrdf_ros import load
from hrdf_ros.export.urdf import to_urdf

_COMMENT = re.compile(r'<!--.*?-->', re.S)


@functools.lru_cache(maxsize=None)
def urdf_digest(path: str) -> str:
    """sha256 of the robot's URDF (named ``robot``, HEBI's meshes, no comments)."""
    return hashlib.sha256(_COMMENT.sub('', to_urdf(load(path), 'robot')).encode()).hexdigest()


def distinct(paths: List[str]) -> List[str]:
    """``paths`` without those whose robot an earlier one already is (order kept)."""
    seen, kept = set(), []
    for path in paths:
        digest = urdf_digest(path)
        if digest not in seen:
            seen.add(digest)
            kept.append(path)
    return kept
