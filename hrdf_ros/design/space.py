"""The design space of ``hrdf design``: serial arms as HEBI's kits are built.

In: a :class:`Design` (chosen by the search, or read off a robot model with
:func:`design_of`). Out: its HRDF text (:meth:`Design.hrdf`) and its
:class:`~hrdf_ros.model.RobotModel` (:meth:`Design.model`).

A design is a base actuator, then between consecutive actuators one connector, then an
end effector:

* an actuator of HEBI's catalogue (``X5-4``, ``R8-16``, ``T5-9``, ...), 3 to 7 of them;
* a connector: a bracket of the catalogue (``X5HeavyRightOutside``, ``R8LightRight``, ...)
  or a tube ``<link>`` of the actuators' series (``X5`` or ``R8``; both ends
  ``RightAngle``) with an ``extension`` (m) and a ``twist`` (rad; the search tries the
  multiples of pi/2 in ``TWISTS``, a kit keeps the value its file has);
* an end effector: ``Custom`` (none, massless), or the series' parallel gripper
  (``X5Parallel``, ``R8Parallel``).

Every HEBI kit in ../shared/hrdf/kits but the double-shoulder arms (their yoke is a rigid
body) is such a design: read as one and written back, it is the same robot
(test/test_design_space.py). The parts' series must fit (FORMAT.md's interfaces: an X5
bracket on an X actuator, an R8 one on an R or T actuator); the reader checks that when
the design is read (:meth:`Design.model`).
"""
from __future__ import annotations

import math
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from typing import Optional, Tuple

from ..hrdf.catalogue import ACTUATORS, BRACKETS
from ..hrdf.grammar import HEBI_PI
from ..model import RobotModel

#: The twists the search gives links, rad, and how they are written: HRDF's ``pi`` is
#: HEBI's (:data:`hrdf_ros.hrdf.grammar.HEBI_PI`), so these are the values the reader
#: gives the text.
TWIST_TEXT = {-HEBI_PI / 2: '-pi/2', 0.0: '0', HEBI_PI / 2: 'pi/2', HEBI_PI: 'pi'}
TWISTS = tuple(TWIST_TEXT)
#: The links' tube length range, m.
MIN_EXTENSION, MAX_EXTENSION = 0.05, 1.0
#: The version designs are written in.
VERSION = '1.6.0'


@dataclass(frozen=True)
class Family:
    """The parts of one actuator series, as HEBI's kits combine them.

    Attributes:
        name: ``'X'``, ``'T'`` or ``'R'`` (the task file's ``families``).
        actuators: the catalogue's actuators of the series, lightest first.
        parts: the series of its brackets and links (``'X5'``, ``'R8'``).
        brackets: the catalogue's brackets of that series.
        gripper: the series' parallel gripper.
        sizes: the actuators' sizes (:func:`size_of`), lightest first.
    """

    name: str
    actuators: Tuple[str, ...]
    parts: str
    brackets: Tuple[str, ...]
    gripper: str
    sizes: Tuple[str, ...] = ()


def size_of(actuator: str) -> str:
    """An actuator's size: its type before the dash (``'X5'`` of ``X5-9``). The actuators
    of one size share their geometry and centre of mass and differ in mass and rated
    effort (HEBI's catalogue, :data:`~hrdf_ros.hrdf.catalogue.ACTUATORS`), so a design
    can swap one for another of its size without moving a frame."""
    return actuator.split('-', 1)[0]


def variants(size: str) -> Tuple[str, ...]:
    """The catalogue's actuators of a size, lightest first, then by rated effort (the
    order :func:`~.evaluate.Evaluator.evaluate` sizes a joint in)."""
    return tuple(sorted((a for a in ACTUATORS if size_of(a) == size),
                        key=lambda a: (ACTUATORS[a].mass, ACTUATORS[a].max_effort, a)))


def strongest(size: str) -> str:
    """The actuator of a size with the largest rated effort (the heaviest, or as heavy
    as the others: T5 and T8)."""
    return max(variants(size), key=lambda a: (ACTUATORS[a].max_effort, ACTUATORS[a].mass))


def _family(name: str, prefixes: Tuple[str, ...], parts: str) -> Family:
    actuators = sorted((a for a in ACTUATORS if a.startswith(prefixes)),
                       key=lambda a: (ACTUATORS[a].mass, ACTUATORS[a].max_effort, a))
    brackets = tuple(sorted(b for b in BRACKETS if b.startswith(parts)))
    sizes = tuple(dict.fromkeys(size_of(a) for a in actuators))
    return Family(name, tuple(actuators), parts, brackets, f'{parts}Parallel', sizes)


#: The families of the space (HEBI's X, T and R8 series; the R25 and T25 series are not
#: in it), from the catalogue (``hrdf_ros.hrdf.catalogue``): X5 and X8 actuators with X5
#: brackets and links; T5 and T8, and R8, with R8 brackets and links (as HEBI's kits).
FAMILIES = {f.name: f for f in (_family('X', ('X5-', 'X8-'), 'X5'),
                                _family('T', ('T5-', 'T8-'), 'R8'),
                                _family('R', ('R8-',), 'R8'))}


@dataclass(frozen=True)
class Connector:
    """What joins two actuators.

    Attributes:
        kind: ``'bracket'`` or ``'link'``.
        type: the bracket's type, or the link's series (``'X5'``, ``'R8'``).
        extension: a link's tube length, m (0 for a bracket).
        twist: a link's twist, rad (0 for a bracket).
    """

    kind: str
    type: str
    extension: float = 0.0
    twist: float = 0.0


@dataclass(frozen=True)
class Design:
    """A serial arm of the design space (module docstring).

    Attributes:
        actuators: their types, base to tip.
        connectors: one fewer than the actuators, in order.
        end_effector: ``'Custom'`` or a parallel gripper's type.
        base: (x, y, z, yaw): where the base stands in the task's frame, m, turned about
            z by yaw, rad (the HRDF's robot ``trans`` and ``rot``).
    """

    actuators: Tuple[str, ...]
    connectors: Tuple[Connector, ...]
    end_effector: str = 'Custom'
    base: Tuple[float, float, float, float] = (0.0, 0.0, 0.0, 0.0)

    def __post_init__(self):
        if len(self.base) != 4 or not all(math.isfinite(v) for v in self.base):
            raise ValueError(f'a base is 4 finite numbers (x, y, z, yaw), got {self.base!r}')
        if len(self.connectors) != len(self.actuators) - 1:
            raise ValueError(f'{len(self.actuators)} actuators need '
                             f'{len(self.actuators) - 1} connectors, got '
                             f'{len(self.connectors)}')
        for c in self.connectors:
            if c.kind not in ('bracket', 'link'):
                raise ValueError(f'a connector is a bracket or a link, got {c.kind!r}')
            if c.kind == 'link' and not (MIN_EXTENSION <= c.extension <= MAX_EXTENSION
                                         and math.isfinite(c.twist)):
                raise ValueError(f'a link has an extension in [{MIN_EXTENSION}, '
                                 f'{MAX_EXTENSION}] m and a finite twist, got '
                                 f'{c.extension} m and {c.twist} rad')

    @property
    def family(self) -> Family:
        """The family (``FAMILIES``) of the base actuator; KeyError when none."""
        return next(f for f in FAMILIES.values() if self.actuators[0] in f.actuators)

    def text(self) -> str:
        """The modules base to tip in one line: actuators and brackets by type, links as
        ``series:extension:twist`` (``X5:0.325:pi``); :func:`parse_design` reads it."""
        words = []
        for k, actuator in enumerate(self.actuators):
            words.append(actuator)
            if k < len(self.connectors):
                c = self.connectors[k]
                words.append(c.type if c.kind == 'bracket' else
                             f'{c.type}:{float(c.extension)!r}:'
                             f'{TWIST_TEXT.get(c.twist, repr(float(c.twist)))}')
        return ' '.join(words)

    def hrdf(self, description: Optional[str] = None) -> str:
        """The design as an HRDF 1.6.0 document (numbers as the shortest decimals
        that read back exactly; the twists of ``TWISTS`` as ``pi/2`` etc.)."""
        robot = ET.Element('robot', {'version': VERSION})
        if description:
            robot.set('description', description)
        if any(self.base):
            x, y, z, yaw = (float(v) for v in self.base)
            robot.set('trans', f'{x!r} {y!r} {z!r}')
            robot.set('rot', f'Rz({yaw!r})')
        for k, actuator in enumerate(self.actuators):
            ET.SubElement(robot, 'actuator', {'type': actuator})
            if k < len(self.connectors):
                c = self.connectors[k]
                if c.kind == 'bracket':
                    ET.SubElement(robot, 'bracket', {'type': c.type})
                else:
                    ET.SubElement(robot, 'link', {'type': c.type,
                                                  'extension': repr(float(c.extension)),
                                                  'twist': TWIST_TEXT.get(
                                                      c.twist, repr(float(c.twist)))})
        end = ET.SubElement(robot, 'end-effector')
        if self.end_effector != 'Custom':
            end.set('type', self.end_effector)
        ET.indent(robot, space='  ')
        return '<?xml version="1.0" encoding="UTF-8"?>\n' + \
            ET.tostring(robot, encoding='unicode') + '\n'

    def with_actuators(self, actuators) -> 'Design':
        """The same design with other actuators (as many)."""
        return Design(tuple(actuators), self.connectors, self.end_effector, self.base)

    def model(self) -> RobotModel:
        """The design read as HRDF.

        Raises:
            HrdfError: parts whose interfaces do not fit (the reader's located errors).
        """
        from ..hrdf.reader import loads  # noqa: PLC0415 - the reader, once per design
        return loads(self.hrdf())


def design_of(model: RobotModel) -> Design:
    """The :class:`Design` a robot is, when it is one (module docstring).

    The robot's base frame is not part of a design (the task places the base).

    Raises:
        ValueError: a robot outside the space (saying which element is not what the
            space has there).
    """
    elements = list(model.elements)
    actuators, connectors = [], []
    for k, element in enumerate(elements[:-1]):
        if k % 2 == 0:
            if element.kind != 'actuator':
                raise ValueError(f'element {k} is a {element.kind}: a design has an '
                                 'actuator there')
            actuators.append(element.type)
            continue
        if element.kind == 'bracket':
            connectors.append(Connector('bracket', element.type))
        elif element.kind == 'link' and element.link.input == element.link.output == \
                'RightAngle':
            twist, extension = element.link.twist, element.link.extension
            if not MIN_EXTENSION <= extension <= MAX_EXTENSION:
                raise ValueError(f'element {k}: a <link> extension of {extension} m is '
                                 f'outside [{MIN_EXTENSION}, {MAX_EXTENSION}] m')
            connectors.append(Connector('link', element.type, extension, twist))
        else:
            raise ValueError(f'element {k} is a {element.kind}: a design has a bracket or '
                             'a RightAngle link there')
    end = elements[-1] if elements else None
    if end is None or not end.is_end_effector or len(elements) % 2:
        raise ValueError('a design ends in an end effector after its last actuator')
    if any(e.parent != k - 1 for k, e in enumerate(elements)):
        raise ValueError('a design is one chain, each element on the one before')
    return Design(tuple(actuators), tuple(connectors), end.type)


def parse_design(text: str, end_effector: str = 'Custom') -> Design:
    """The :class:`Design` of :meth:`Design.text`'s line (twists as ``0``, ``pi/2``,
    ``pi``, ``-pi/2`` or rad).

    Raises:
        ValueError: not such a line (which word).
    """
    words = text.split()
    if len(words) % 2 == 0:
        raise ValueError(f'a design is actuators with one connector between each two, got '
                         f'{len(words)} words')
    named = {value: key for key, value in TWIST_TEXT.items()}
    connectors = []
    for word in words[1::2]:
        if ':' not in word:
            connectors.append(Connector('bracket', word))
            continue
        try:
            series, extension, twist = word.split(':')
            connectors.append(Connector('link', series, float(extension),
                                        named[twist] if twist in named else float(twist)))
        except ValueError:
            raise ValueError(f'{word!r}: a link is series:extension:twist') from None
    return Design(tuple(words[0::2]), tuple(connectors), end_effector)
