"""Which elements, attributes and types each HRDF version allows (FORMAT.md + CHANGELOG).

In: nothing (tables). Out: the version rules the reader checks every file against: the
versions this package implements, per element the attributes it takes and the first
version that allows each, required attributes, and the first version of each element
and feature. Catalogue types carry their own first versions
(:data:`hrdf_ros.hrdf.catalogue.TYPE_MIN_VERSION`).
"""
from __future__ import annotations

from typing import Dict, Tuple

Version = Tuple[int, int, int]

#: HRDF versions this package implements (FORMAT.md 1.6.0).
SUPPORTED_VERSIONS: Dict[str, Version] = {
    f'1.{minor}.0': (1, minor, 0) for minor in range(7)
}

V100, V110, V120, V130, V140, V150 = (1, 0, 0), (1, 1, 0), (1, 2, 0), (1, 3, 0), (1, 4, 0), \
    (1, 5, 0)

#: Inertia tensor attributes (kg m^2, about the COM, in the ``com_rot`` axes).
INERTIA_ATTRIBUTES = ('ixx', 'iyy', 'izz', 'ixy', 'ixz', 'iyz')
# Offsets and overrides of built-in elements (FORMAT.md "Offsetting and overwriting").
_BUILTIN_MASS_ATTRS = {name: V110 for name in
                       ('mass_offset', 'com_trans_offset', 'mass', 'com_rot', 'com_trans')
                       + INERTIA_ATTRIBUTES}

#: attribute -> first HRDF version that allows it, per element.
ATTRIBUTES: Dict[str, Dict[str, Version]] = {
    'actuator': {'type': V100, 'tag': V140, **_BUILTIN_MASS_ATTRS},
    'link': {'type': V100, 'extension': V100, 'twist': V100, 'input': V120, 'output': V120,
             'tag': V140, **_BUILTIN_MASS_ATTRS},
    'bracket': {'type': V100, 'tag': V140, **_BUILTIN_MASS_ATTRS},
    'end-effector': {'type': V120, 'output_rot': V120, 'output_trans': V120, 'tag': V140,
                     **{k: V120 for k in _BUILTIN_MASS_ATTRS}},
    'rigid-body': {'mass': V100, 'com_rot': V100, 'com_trans': V100, 'output_rot': V100,
                   'output_trans': V100, 'tag': V140, 'mesh_path': V130, 'mesh_rot': V130,
                   'mesh_trans': V130, **{k: V110 for k in INERTIA_ATTRIBUTES}},
    'joint': {'axis': V100, 'gear_ratio': V150, 'tag': V140},
}
#: Attributes an element must have.
REQUIRED: Dict[str, Tuple[str, ...]] = {
    'actuator': ('type',), 'link': ('type', 'extension', 'twist'), 'bracket': ('type',),
    'rigid-body': ('mass',), 'joint': ('axis',), 'end-effector': (),
}
#: First version of elements newer than 1.0.0.
ELEMENT_MIN_VERSION: Dict[str, Version] = {'end-effector': V120, 'output': V130,
                                           'include': V130}
#: ``<robot>`` attributes and the version that introduced each.
ROBOT_ATTRIBUTES: Dict[str, Version] = {'version': V100, 'rot': V100, 'trans': V100,
                                        'description': V120}
#: Element names a chain (``<robot>`` or ``<output>`` content) may contain.
CHAIN_CONTENT = tuple(ATTRIBUTES) + ('include',)
#: Elements whose outputs may be given with ``<output>`` children (1.3.0+).
BRANCHING_ELEMENTS = ('bracket', 'rigid-body')
#: First version that allows formulas and ``Rx/Ry/Rz`` rotations (FORMAT.md 1.1.0).
FORMULA_VERSION = V110
#: Last version whose chains get an implicit end effector (FORMAT.md 1.2.0 changes).
IMPLICIT_END_EFFECTOR_UNTIL = V110
#: First version that allows ``http(s)://`` URLs in ``mesh_path`` (CHANGELOG 1.4.0).
MESH_URL_VERSION = V140


def format_version(version: Version) -> str:
    """``(1, 4, 0)`` -> ``'1.4.0'``."""
    return '.'.join(str(v) for v in version)
