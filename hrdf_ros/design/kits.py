"""HEBI's arm kits as designs: where ``hrdf design``'s search starts.

In: nothing. Out: :data:`KITS`, ``{kit: Design}`` of HEBI's single-shoulder arm kits
(without a gripper; a kit's ``G`` variant is the same arm with the series' parallel
gripper: :func:`kit_designs` gives either).

The compositions are HEBI's kit files (``A-2085-06.hrdf`` etc., as published with
hebi-py's examples and in ../shared/hrdf/kits), written as :meth:`Design.text` lines;
test/test_design_space.py reads every kit file and checks that it is the design here.
"""
from __future__ import annotations

from typing import Dict, List, Tuple

from .space import Design, parse_design

_LINES = {
    'A-2084-01': 'X5-4 X5HeavyRightOutside X5-9 X5:0.325:-pi/2 X5-4 X5:0.325:0 X5-1',
    'A-2085-03': 'X5-4 X5HeavyRightOutside X5-9 X5:0.325:pi X5-4',
    'A-2085-04': 'X5-4 X5HeavyRightOutside X5-9 X5:0.325:pi X5-4 X5:0.325:pi X5-1',
    'A-2085-05': 'X8-9 X5HeavyRightOutside X8-16 X5:0.325:pi X8-9 X5:0.325:pi X5-1 '
                 'X5LightRight X5-1',
    'A-2085-06': 'X8-9 X5HeavyRightOutside X8-16 X5:0.325:pi X8-9 X5:0.325:pi X5-1 '
                 'X5LightRight X5-1 X5LightRight X5-1',
    'A-2240-04': 'R8-16 R8HeavyRightOutside R8-16 R8:0.325:pi R8-16 R8:0.325:pi R8-3',
    'A-2240-05': 'R8-16 R8HeavyRightOutside R8-16 R8:0.325:pi R8-16 R8:0.325:pi R8-3 '
                 'R8LightRight R8-3',
    'A-2240-06': 'R8-16 R8HeavyRightOutside R8-16 R8:0.325:pi R8-16 R8:0.325:pi R8-3 '
                 'R8LightRight R8-3 R8LightRight R8-3',
    'A-2302-01': 'R8-9 R8HeavyRightOutside R8-16 R8:0.325:-pi/2 R8-3 R8:0.325:0 R8-3',
    'A-2580-04': 'T5-4 R8HeavyRightOutside T5-9 R8:0.325:pi T5-4 R8:0.325:pi T5-1',
    'A-2580-05': 'T8-9 R8HeavyRightOutside T8-16 R8:0.325:pi T8-9 R8:0.325:pi T5-1 '
                 'R8LightRight T5-1',
    'A-2580-06': 'T8-9 R8HeavyRightOutside T8-16 R8:0.325:pi T8-9 R8:0.325:pi T5-1 '
                 'R8LightRight T5-1 R8LightRight T5-1',
    'A-2590-01': 'T5-4 R8HeavyRightOutside T5-9 R8:0.325:pi/2 T5-4 R8:0.325:0 T5-1',
}

#: ``{kit: Design}``: HEBI's single-shoulder arm kits, no gripper (module docstring).
KITS: Dict[str, Design] = {name: parse_design(line) for name, line in _LINES.items()}
#: The kits HEBI also sells with the gripper (as ``<kit>G``).
WITH_GRIPPER = ('A-2084-01', 'A-2085-05', 'A-2085-06', 'A-2240-05', 'A-2240-06', 'A-2302-01',
                'A-2580-05', 'A-2580-06', 'A-2590-01')


def kit_designs(gripper: bool) -> List[Tuple[str, Design]]:
    """``[(name, design)]`` of every kit, in name order; with ``gripper``, each with the
    series' parallel gripper at the end, named ``<kit>G`` where HEBI sells it so
    (:data:`WITH_GRIPPER`), else ``<kit> + <gripper>``."""
    if not gripper:
        return list(KITS.items())
    return [(name + 'G' if name in WITH_GRIPPER else f'{name} + {d.family.gripper}',
             Design(d.actuators, d.connectors, d.family.gripper))
            for name, d in KITS.items()]
