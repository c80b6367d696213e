"""One builder per HRDF element kind: an XML node -> a resolved :class:`Element`.

In: a chain element's XML node (``<actuator>``, ``<link>``, ``<bracket>``,
``<rigid-body>``, ``<joint>``, ``<end-effector>``), where it mounts (parent element and
output), and the :class:`~hrdf_ros.hrdf.context.ReadContext`. Out: the
:class:`~hrdf_ros.model.Element` with catalogue values, FORMAT.md offsets and overrides
applied (m, kg, rad, kg m^2; frames in the element's input frame), or ``None`` when the
node is too broken to build (the reasons are recorded as diagnostics).

Children (``<output>``), tags and interface fit are the reader's business
(:mod:`.reader`, :mod:`.checks`).
"""
from __future__ import annotations

import math
import os
import urllib.parse
from typing import Optional, Tuple

import numpy as np

from ..reproducible import compose
from ..model import Element, LinkGeometry
from . import catalogue, inertia, sources
from .context import ReadContext, homogeneous
from .grammar import rotation_x, rotation_y, rotation_z
from .safe_xml import XmlNode
from .versions import INERTIA_ATTRIBUTES, MESH_URL_VERSION

#: HRDF joint axes (FORMAT.md ``<joint axis>``).
JOINT_AXES = ('rx', 'ry', 'rz', 'tx', 'ty', 'tz')
#: The negative axes hebi-py 2.16.1 also accepts (deviation ``negative-axis``).
NEGATIVE_JOINT_AXES = tuple('-' + axis for axis in JOINT_AXES)


def _translation(x: float, y: float, z: float) -> np.ndarray:
    return homogeneous(np.eye(3), (x, y, z))


def _rot(matrix: np.ndarray) -> np.ndarray:
    return homogeneous(matrix, (0.0, 0.0, 0.0))


def build(ctx: ReadContext, node: XmlNode, parent: int, output: int) -> Optional[Element]:
    """The element of ``node`` mounted on output ``output`` of element ``parent`` (-1:
    the base frame), or ``None`` (diagnostics recorded)."""
    builder = _BUILDERS[node.tag]
    return builder(ctx, node, parent, output)


# -- mass properties -------------------------------------------------------------------
def mass_properties(ctx: ReadContext, node: XmlNode, mass: float, com, tensor):
    """Apply FORMAT.md offsets/overrides to catalogue mass properties.

    Returns:
        (mass kg, (4, 4) COM frame in the input frame, (6,) inertia kg m^2).
    """
    if 'mass' in node.attrs:
        mass = ctx.formula(node, 'mass', mass)
    else:
        mass = mass + ctx.formula(node, 'mass_offset', 0.0)
    if 'com_trans' in node.attrs:
        com_trans = ctx.translation(node, 'com_trans')
    else:
        com_trans = np.asarray(com, float) + ctx.translation(node, 'com_trans_offset')
    com_frame = homogeneous(ctx.rotation(node, 'com_rot'), com_trans)
    values = np.array([ctx.formula(node, name, tensor[i])
                       for i, name in enumerate(INERTIA_ATTRIBUTES)], dtype=float)
    check_mass(ctx, node, mass)
    check_inertia(ctx, node, values)
    return mass, com_frame, values


def check_mass(ctx: ReadContext, node: XmlNode, mass: float) -> None:
    """A mass must be finite and not negative."""
    if not math.isfinite(mass) or mass < 0.0:
        attr = 'mass' if 'mass' in node.attrs else 'mass_offset'
        ctx.error(node, f'mass must be finite and >= 0 kg, got {mass:g} kg', attr)


def check_inertia(ctx: ReadContext, node: XmlNode, values) -> None:
    """Warn (code ``nonphysical-inertia``) when inertia attributes written in the HRDF
    give a tensor that is not positive semi-definite or breaks the triangle inequality
    (simulators reject such bodies; hebi-py ignores rotational inertia)."""
    written = [name for name in INERTIA_ATTRIBUTES if name in node.attrs]
    problem = inertia.tensor_problem(values) if written else None
    if problem:
        ctx.warn(node, problem, written[0], code='nonphysical-inertia')


# -- builders --------------------------------------------------------------------------
def actuator(ctx: ReadContext, node: XmlNode, parent: int, output: int) -> Optional[Element]:
    """``<actuator type>``: a rotation about +z of the input frame at the output."""
    spec = ctx.typed(node, catalogue.ACTUATORS, '')
    if spec is None:
        return None
    mass, com, tensor = mass_properties(ctx, node, spec.mass, spec.com, spec.inertia)
    return Element('actuator', spec.name, node.attrs.get('tag'), parent, output, mass,
                   com, tensor, [_translation(0.0, 0.0, spec.output_height)],
                   motion='rz', max_speed=spec.max_speed, max_effort=spec.max_effort)


def bracket(ctx: ReadContext, node: XmlNode, parent: int, output: int) -> Optional[Element]:
    """``<bracket type>``: catalogue outputs."""
    spec = ctx.typed(node, catalogue.BRACKETS, '')
    if spec is None:
        return None
    mass, com, tensor = mass_properties(ctx, node, spec.mass, spec.com, spec.inertia)
    out = homogeneous(rotation_x(spec.output_rx), spec.output_translation)
    return Element('bracket', spec.name, node.attrs.get('tag'), parent, output, mass, com,
                   tensor, [out])


def link(ctx: ReadContext, node: XmlNode, parent: int, output: int) -> Optional[Element]:
    """``<link type extension twist input output>``: a tube between two interfaces."""
    spec = ctx.typed(node, catalogue.LINKS, 'link:')
    extension = ctx.formula(node, 'extension')
    twist = ctx.formula(node, 'twist')
    in_style = ctx.enum(node, 'input', catalogue.LINK_INPUT_STYLES, 'RightAngle')
    out_style = ctx.enum(node, 'output', catalogue.LINK_OUTPUT_STYLES, 'RightAngle')
    if None in (spec, extension, twist, in_style, out_style):
        return None
    if out_style == 'Inline' and not spec.inline_output:
        ctx.error(node, f'link type {spec.name} has no Inline output', 'output')
        return None
    h = spec.half_height
    if in_style == 'RightAngle':
        tube = compose(_translation(extension, 0.0, h), _rot(rotation_x(twist)))
        out = compose(tube, _translation(0.0, 0.0, h) if out_style == 'RightAngle'
                      else _rot(rotation_y(math.pi / 2)))
        com = (extension / 2, 0.0, h)
    else:
        tube = compose(_translation(0.0, 0.0, extension), _rot(rotation_z(twist)))
        out = compose(tube, compose(_translation(-h, 0.0, 0.0), _rot(rotation_y(-math.pi / 2)))
                      if out_style == 'RightAngle' else np.eye(4))
        com = (0.0, 0.0, extension / 2)
    base_mass = spec.base_mass[(in_style, out_style)] + spec.mass_per_metre * extension
    nominal = inertia.link(spec.name, in_style, out_style, extension, base_mass)
    mass, com_frame, tensor = mass_properties(ctx, node, base_mass, com, nominal)
    return Element('link', spec.name, node.attrs.get('tag'), parent, output, mass,
                   com_frame, tensor, [out],
                   link=LinkGeometry(in_style, out_style, extension, twist, h))


def rigid_body(ctx: ReadContext, node: XmlNode, parent: int,
               output: int) -> Optional[Element]:
    """``<rigid-body>``: mass properties and one output as written (plus its mesh)."""
    mass = ctx.formula(node, 'mass')
    if mass is None:
        return None
    check_mass(ctx, node, mass)
    com = ctx.transform(node, 'com_rot', 'com_trans')
    tensor = np.array([ctx.formula(node, name, 0.0) for name in INERTIA_ATTRIBUTES])
    check_inertia(ctx, node, tensor)
    out = ctx.transform(node, 'output_rot', 'output_trans')
    element = Element('rigid-body', None, node.attrs.get('tag'), parent, output, mass, com,
                      tensor, [out])
    mesh(ctx, node, element)
    return element


def mesh(ctx: ReadContext, node: XmlNode, element: Element) -> None:
    """FORMAT.md ``mesh_path`` / ``mesh_rot`` / ``mesh_trans`` of a rigid body.

    Deviations hebi-py accepts (warnings, errors in strict mode): an empty or blank
    ``mesh_path`` means no mesh (``empty-mesh-path``; ``mesh_rot``/``mesh_trans`` are
    checked, then ignored); a web URL in a file declaring a version before 1.4.0 is used
    (``mesh-url-version``).
    """
    path = node.attrs.get('mesh_path')
    if path is None:
        for name in ('mesh_rot', 'mesh_trans'):
            if name in node.attrs:
                ctx.error(node, f'"{name}" needs a "mesh_path"', name)
        return
    transform = ctx.transform(node, 'mesh_rot', 'mesh_trans')
    if not path.strip():
        ctx.deviation(node, 'empty-mesh-path', 'empty "mesh_path" (FORMAT.md 1.3.0+: a '
                      'relative file path or a web URL); hebi-py reads it as no mesh',
                      'mesh_path')
        return
    element.mesh_path = path
    element.mesh_transform = transform
    if sources.is_web_url(path):
        if not urllib.parse.urlsplit(path).netloc:
            ctx.error(node, f'mesh URL "{path}" has no host', 'mesh_path')
            return
        if ctx.version < MESH_URL_VERSION:
            ctx.deviation(node, 'mesh-url-version', ctx.needs(
                'a web URL in "mesh_path"', MESH_URL_VERSION) + ' (CHANGELOG 1.4.0); '
                'hebi-py uses the URL', 'mesh_path')
        element.mesh_file = path
        return
    if path.lower().startswith(sources.WEB_PREFIXES):
        ctx.error(node, f'mesh URL "{path}" must start with "http://" or "https://" '
                  '(lower case)', 'mesh_path')
        return
    problem = sources.relative_path_problem(path, 'mesh')
    if problem:
        if '://' in path:
            problem += ' (web URLs must start with "http://" or "https://")'
        ctx.error(node, problem, 'mesh_path')
        return
    if ctx.source.directory is not None:
        element.mesh_file = sources.resolve(ctx.source.directory, path)
        if ctx.access is not None and not ctx.access.allows(element.mesh_file):
            return      # not looked at: outside what this reader may open
        if not os.path.isfile(element.mesh_file):
            ctx.warn(node, f'mesh file "{path}" not found (looked for '
                     f'{element.mesh_file})', 'mesh_path', code='missing-mesh-file')


def joint(ctx: ReadContext, node: XmlNode, parent: int, output: int) -> Optional[Element]:
    """``<joint axis gear_ratio>``: a massless degree of freedom about/along an axis.

    A negative axis (``-rz`` and the like, any case; deviation ``negative-axis``) is the
    positive axis with :attr:`~hrdf_ros.model.Element.axis_sign` -1, as hebi-py reads it.
    """
    text = node.attrs.get('axis', '')
    negative = text[:1] == '-' and text[1:].casefold() in JOINT_AXES
    axis = ctx.enum(node, 'axis', NEGATIVE_JOINT_AXES if negative else JOINT_AXES)
    if negative and axis is not None:
        motion = 'rotation about' if axis[1] == 'r' else 'translation along'
        ctx.deviation(node, 'negative-axis', f'"{text}" is not a FORMAT.md axis (rx ry rz '
                      f'tx ty tz, all versions); hebi-py reads it as {motion} -{axis[2]} '
                      '(the positive axis, position negated)', 'axis')
    ratio = ctx.formula(node, 'gear_ratio', 1.0)
    if ratio == 0.0:
        ctx.error(node, 'gear_ratio must not be zero', 'gear_ratio')
        return None
    if axis is None:
        return None
    return Element('joint', None, node.attrs.get('tag'), parent, output, 0.0,
                   np.eye(4), np.zeros(6), [np.eye(4)], motion=axis.lstrip('-'),
                   gear_ratio=ratio, axis_sign=-1.0 if negative else 1.0)


def end_effector(ctx: ReadContext, node: Optional[XmlNode], at: Tuple[int, int],
                 implicit: bool = False) -> Optional[Element]:
    """``<end-effector>`` mounted at ``at`` = (parent, output); ``node=None`` builds the
    implicit end effector of HRDF <= 1.1.0 chains (HEBI's Custom type, defaults)."""
    spec = catalogue.END_EFFECTORS['Custom']
    if node is not None:
        spec = ctx.typed(node, catalogue.END_EFFECTORS, '', 'Custom')
        if spec is None:
            return None
    default_out = _translation(*spec.output_translation)
    if node is None:
        mass, com, tensor = spec.mass, np.eye(4), np.zeros(6)
        out = default_out
    else:
        mass, com, tensor = mass_properties(ctx, node, spec.mass, spec.com, spec.inertia)
        out = ctx.transform(node, 'output_rot', 'output_trans', default_out)
    return Element('end-effector', spec.name, None if node is None else node.attrs.get('tag'),
                   at[0], at[1], mass, com, tensor, [out], is_end_effector=True,
                   implicit=implicit)


_BUILDERS = {
    'actuator': actuator, 'link': link, 'bracket': bracket, 'rigid-body': rigid_body,
    'joint': joint,
    'end-effector': lambda ctx, node, parent, output: end_effector(ctx, node,
                                                                   (parent, output)),
}
