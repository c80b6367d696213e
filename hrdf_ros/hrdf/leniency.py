"""The leniency policy: every warning code, and which spec deviations strict mode refuses.

In: nothing (tables). Out: :data:`DEVIATIONS`, the spec deviations hrdf_ros accepts
because HEBI's own library (hebi-py 2.16.1) loads them *and gives them a clear meaning*,
:data:`NOTES`, the other warning codes (allowed by FORMAT.md, or about the file
system), and :data:`CONFIG_CODES`, those about a HEBI arm config (``*.cfg.yaml``). Each entry names the rule broken, the spec version that states it, what
hebi-py does and what hrdf_ros does. The reader reports a deviation with
:meth:`~hrdf_ros.hrdf.context.ReadContext.deviation`: a located warning carrying the
code, or an error with the same code in strict mode (``load(..., strict=True)``,
``hrdf validate --strict``, the node's ``strict`` parameter). Notes stay warnings in
strict mode.

The policy: where hebi-py accepts a file that breaks the spec and reads it with a clear
meaning, hrdf_ros reads it the same way and warns; where hebi-py's reading is a silent
misread (a formula in a 1.0.0 file read as 0, ``"2,000"`` read as 2, a misspelled root
read as an empty robot), hrdf_ros keeps the error. The documentation's warning code
reference is rendered from these tables at build time (:func:`markdown_table`).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Dict


@dataclass(frozen=True)
class WarningCode:
    """One warning code.

    Attributes:
        code: the stable identifier (``Diagnostic.code``, ``[code]`` in text).
        rule: the spec rule the file breaks (or what the note is about).
        spec: where the rule is stated: document and version.
        hebi: what hebi-py 2.16.1 does with such a file (measured).
        ours: what hrdf_ros does without strict mode.
        deviation: True when strict mode makes it an error.
    """

    code: str
    rule: str
    spec: str
    hebi: str
    ours: str
    deviation: bool


_DEVIATIONS = (
    WarningCode(
        'negative-axis', '`<joint axis>` is one of `rx ry rz tx ty tz`',
        'FORMAT.md 1.0.0-1.6.0 `<joint>`',
        'accepts `-rx` ... `-tz` (any case): motion about/along the negative axis, the '
        'same frames as the positive axis with the position negated; its Jacobian column '
        'has the wrong sign (not copied)',
        'same motion (`Element.axis_sign` = -1); URDF axis `0 0 -1` and the like; true '
        'Jacobian', True),
    WarningCode(
        'empty-mesh-path', '`mesh_path` is a relative file path or a web URL',
        'FORMAT.md 1.3.0-1.6.0 `<rigid-body>`',
        'accepts `mesh_path=""` (or blank) without a warning and draws no mesh; '
        '`mesh_rot`/`mesh_trans` beside it only move its unused mesh frame',
        'no mesh (`mesh_rot`/`mesh_trans` still checked, then ignored)', True),
    WarningCode(
        'mesh-url-version', 'web URLs in `mesh_path` need HRDF 1.4.0',
        'CHANGELOG 1.4.0',
        'accepts the URL in 1.3.0 files, with no warning',
        'uses the URL', True),
    WarningCode(
        'include-version',
        'an included file has the same HRDF version as the file including it',
        'FORMAT.md 1.3.0-1.6.0 `<include>`',
        'reads each included file under its own declared version (none: 1.0.0) and never '
        'compares versions; no implicit end effector for included files',
        'the same: the included file\'s elements, attributes and types are checked '
        'against its own version', True),
)

_NOTES = (
    WarningCode(
        'enum-case', 'enumerated values are case-insensitive; the spec spells them',
        'FORMAT.md 1.0.0-1.6.0 (enumerations)',
        'accepts with the warning "non-matching case"', 'accepts, names the spelling',
        False),
    WarningCode(
        'missing-mesh-file', 'a local `mesh_path` names a file that does not exist',
        'FORMAT.md 1.3.0-1.6.0 `<rigid-body>` (meshes are for visualisation)',
        'accepts, no warning', 'keeps the path (the URDF names it)', False),
    WarningCode(
        'nonphysical-inertia', 'inertia attributes (`ixx` ... `iyz`) written in the HRDF '
        'give a tensor that is not positive semi-definite or breaks the triangle inequality',
        'FORMAT.md 1.1.0-1.6.0 (inertia about the COM); physics',
        'accepts (hebi-py does not use rotational inertia)',
        'accepts; the URDF export makes the tensor physical (`hrdf_ros.description.inertials`) '
        'unless exact masses are asked for', False),
    WarningCode(
        'included-robot-origin', '`rot`/`trans` on an included file\'s `<robot>`',
        'FORMAT.md 1.3.0-1.6.0 `<include>` (root attributes are ignored)',
        'ignores them', 'ignores them, says so', False),
)

#: Warnings about a HEBI arm config (:mod:`hrdf_ros.hrdf.arm_config`); ``deviation``: an
#: error in strict mode.
_CONFIG = (
    WarningCode(
        'config-name', 'a HEBI arm config\'s `names` are the joint names, which ROS '
        'spells with `A-Z a-z 0-9 _ /` only',
        'HEBI arm config (`*.cfg.yaml`) `names`; ROS 2 names',
        'HEBI\'s arm API reads the name as written and looks for a module of that name '
        '(HEBI\'s A-2099-07 configs: `J2A_shoulder1"`, with a stray quote)',
        'drops the other characters: joint `J2A_shoulder1` (`hrdf_ros.hrdf.arm_config`)',
        True),
    WarningCode(
        'config-gains-missing', 'a HEBI arm config\'s `gains: default:` names a file '
        'that does not exist', 'HEBI arm config (`*.cfg.yaml`) `gains`',
        'HEBI\'s arm API fails to load the gains (HEBI\'s A-2099-07G config names '
        '`gains/A-2099-01-7.xml`)',
        'velocity and effort limits are the modules\' rated values, not the gains\' '
        'bounds (`hrdf_ros.hrdf.gains`)', False),
)

#: code -> spec deviation hebi-py accepts with a clear meaning (strict: an error).
DEVIATIONS: Dict[str, WarningCode] = {w.code: w for w in _DEVIATIONS}
#: code -> warning that is not a spec deviation (strict: still a warning).
NOTES: Dict[str, WarningCode] = {w.code: w for w in _NOTES}
#: code -> warning about a HEBI arm config (``deviation``: an error in strict mode).
CONFIG_CODES: Dict[str, WarningCode] = {w.code: w for w in _CONFIG}
#: every warning code hrdf_ros emits.
WARNING_CODES: Dict[str, WarningCode] = {**DEVIATIONS, **NOTES, **CONFIG_CODES}


def markdown_table() -> str:
    """The Markdown table of every warning code (the documentation's reference): code,
    rule, spec, what HEBI's software does, hrdf_ros, strict (``error`` or ``warning``), one row per code,
    deviations first."""
    rows = ['| code | rule broken | spec | HEBI: hebi-py 2.16.1 (HRDF), arm API (configs) '
            '| hrdf_ros | `--strict` |',
            '|---|---|---|---|---|---|']
    for w in WARNING_CODES.values():
        rows.append(f'| `{w.code}` | {w.rule} | {w.spec} | {w.hebi} | {w.ours} | '
                    f'{"error" if w.deviation else "warning"} |')
    return '\n'.join(rows) + '\n'


__all__ = ['CONFIG_CODES', 'DEVIATIONS', 'NOTES', 'WARNING_CODES', 'WarningCode', 'markdown_table']
