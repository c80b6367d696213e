"""The HEBI reference model itself: every kit URDF HEBI publishes expands with the real
xacro through the ament prefix, and every mesh it names is a file of the shared copy."""
import os
import re

import pytest

from hebi_description import HEBI_DESCRIPTION, hebi_kits, kit_urdf, require_hebi_description

require_hebi_description()


def test_kits_with_hrdf_files():
    kits = hebi_kits()
    assert len(kits) == 24, kits
    assert sum(k.endswith('G') for k in kits) == 10


@pytest.mark.parametrize('kit', hebi_kits())
def test_kit_expands_and_its_meshes_exist(kit):
    urdf = kit_urdf(kit)
    assert f'<robot name="{kit}"' in urdf
    meshes = set(re.findall(r'filename="file://([^"]+)"', urdf))
    assert meshes
    for path in meshes:
        assert os.path.realpath(path).startswith(HEBI_DESCRIPTION + os.sep)
        assert os.path.isfile(path), path
