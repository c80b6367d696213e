"""Check a ros2_control controllers YAML against ros2_controllers' parameter definitions.

In: the text of a controllers YAML (the ``ros2_controllers.yaml`` of a MoveIt config
package: ``controller_manager: ros__parameters: {update_rate, <name>: {type: <plugin>}}``
and one ``<name>: ros__parameters: {...}`` per controller) and a distro in DISTROS.
Out: a list of human-readable errors, each naming its controller and key ([] = accepted).

The definitions are the generate_parameter_library (GPL) YAML files the controllers are
built from, copied under data/ros2_controllers/ (see its SOURCE.md). Per controller:
every key set must be a declared parameter (``__map_<p>`` groups expand over the values
of parameter ``<p>``); set values must have the declared type; a parameter without
``default_value`` must be set; every validator runs on the value the controller would
get (set or default), as the generated code does on declaration. Validators are rsl's
(PickNikRobotics/RSL include/rsl/parameter_validators.hpp), reimplemented below; a
custom (C++) validator without a reimplementation here yields an 'unsupported
validator' error, never a silent pass.

Types are as rclcpp enforces them on a statically typed parameter: an int (``1``) for a
``double`` parameter is an error (InvalidParameterTypeException; write ``1.0``), so is
an empty list (rcl's YAML parser gives it no type: ros2/rclcpp#1955). Scalars are typed
by PyYAML (YAML 1.1), as rcl's parser does for the usual forms.

Limits: no controller is loaded; only the parameters the definitions (plus the few
non-GPL ones in _EXTRA) declare are known. Errors are all reported, where the controller
stops at the first. The type is read from ``controller_manager.<name>.type`` only (not from
the spawner's ``--param-file`` form), its other keys are not checked, and node names
must be plain (no ``/**`` or namespaces).
"""
from __future__ import annotations

import operator
from pathlib import Path

import yaml

DISTROS = ('jazzy', 'kilted')
DATA = Path(__file__).resolve().parent / 'data' / 'ros2_controllers'

_JTC = 'joint_trajectory_controller/joint_trajectory_controller_parameters.yaml'
_JSB = 'joint_state_broadcaster/joint_state_broadcaster_parameters.yaml'
_GRIPPER = 'gripper_controllers/gripper_action_controller_parameters.yaml'
_PARALLEL = 'parallel_gripper_controller/gripper_action_controller_parameters.yaml'
_FORWARD = 'forward_command_controller/forward_command_controller_parameters.yaml'
_COMMON = {
    'forward_command_controller/ForwardCommandController': _FORWARD,
    'joint_trajectory_controller/JointTrajectoryController': _JTC,
    'joint_state_broadcaster/JointStateBroadcaster': _JSB,
    'parallel_gripper_action_controller/GripperActionController': _PARALLEL,
}
#: Controller type (plugin XML <class name>) -> definition file, per distro.
CONTROLLER_TYPES = {
    'jazzy': {**_COMMON,
              'position_controllers/GripperActionController': _GRIPPER,
              'effort_controllers/GripperActionController': _GRIPPER},
    'kilted': dict(_COMMON),  # gripper_controllers was removed before kilted
}

# Parameters declared outside GPL, in GPL form. Every controller: auto_declare in
# ros2_control controller_interface/src/controller_interface_base.cpp (jazzy 9ffbf97,
# kilted cbe7d2c), plus use_sim_time of every node. effort_controllers gripper:
# gains.<joint>.{p,i,d,i_clamp} in ros2_controllers jazzy ed360c9
# gripper_controllers/include/gripper_controllers/hardware_interface_adapter.hpp
# (mapped over the string ``joint``, which this module allows as a one-key map).
_BASE = {'update_rate': {'type': 'int', 'default_value': 0},
         'is_async': {'type': 'bool', 'default_value': False},
         'thread_priority': {'type': 'int', 'default_value': -100},
         'use_sim_time': {'type': 'bool', 'default_value': False}}
_EXTRA = {'effort_controllers/GripperActionController': {
    f'gains.__map_joint.{k}': {'type': 'double', 'default_value': 0.0}
    for k in ('p', 'i', 'd', 'i_clamp')}}


def _is_group(value):
    """GPL's parse_dict rule: a mapping whose first value is a mapping is a group."""
    return isinstance(value, dict) and isinstance(next(iter(value.values())), dict)


def _flatten(tree, is_group=lambda value: isinstance(value, dict), prefix=''):
    out = {}
    for key, value in tree.items():
        if is_group(value):
            out.update(_flatten(value, is_group, f'{prefix}{key}.'))
        else:
            out[f'{prefix}{key}'] = value
    return out


def load_definitions(distro: str) -> dict:
    """{controller type: {dotted parameter name (with __map_ segments): GPL spec}}."""
    if distro not in DISTROS:
        raise ValueError(f'unknown distro {distro!r}; expected one of {DISTROS}')
    files = {}
    for rel in set(CONTROLLER_TYPES[distro].values()):
        (root,) = yaml.safe_load((DATA / distro / rel).read_text()).values()
        files[rel] = _flatten(root, _is_group)
    return {t: {**_BASE, **files[rel], **_EXTRA.get(t, {})}
            for t, rel in CONTROLLER_TYPES[distro].items()}


def _fmt(v):
    return f'{v:g}' if isinstance(v, float) else repr(v)


def _cmp(op, text):
    return lambda v, ref: None if op(v, ref) else f'value {_fmt(v)} must be {text} {_fmt(ref)}'


def _size(op, text):
    return lambda v, n: None if op(len(v), n) else f'length {len(v)} must be {text} {n}'


def _elements(ok, text):
    def check(v, *bounds):
        bad = [x for x in v if not ok(x, *bounds)]
        return bad and f'value {_fmt(bad[0])} must be {text} {", ".join(map(_fmt, bounds))}'
    return check


def _jtc_command_interfaces(v):
    # ros2_controllers joint_trajectory_controller/include/joint_trajectory_controller/
    # validate_jtc_parameters.hpp, command_interface_type_combinations (identical at jazzy
    # ed360c97d6e9e74cb884e3e39a949d987cd15c11 and kilted 0f8eb14e1a7301dd351c0b9cca51a30c86e079ee)
    if 'velocity' in v and len(v) > 1 and 'position' not in v:
        return "'velocity' command interface can be used either alone or 'position' " \
               "command interface has to be present"
    if 'acceleration' in v and 'velocity' not in v and 'position' not in v:
        return "'acceleration' command interface can only be used if 'velocity' and " \
               "'position' command interfaces are present"
    if 'effort' in v and not (len(v) == 1 or (len(v) == 2 and 'position' in v)):
        return "'effort' command interface has to be used alone or with a 'position' interface"
    return None


def _jtc_state_interfaces(v):
    # Same file and commits, state_interface_type_combinations.
    if 'velocity' in v and 'position' not in v:
        return "'velocity' state interface cannot be used if 'position' interface is missing."
    if 'acceleration' in v and ('position' not in v or 'velocity' not in v):
        return "'acceleration' state interface cannot be used if 'position' and " \
               "'velocity' interfaces are not present."
    return None


#: Validator name (GPL key without '<>') -> f(value, *args) -> error text or None.
VALIDATORS = {
    'unique': lambda v: None if len(set(v)) == len(v) else 'must only contain unique values',
    'subset_of': lambda v, valid: next(
        (f'entry {x!r} is not in the set {valid}' for x in v if x not in valid), None),
    'one_of': lambda v, valid: None if v in valid else f'value {_fmt(v)} is not in the set {valid}',
    'fixed_size': _size(operator.eq, 'equal to'),
    'size_gt': _size(operator.gt, 'greater than'),
    'size_lt': _size(operator.lt, 'less than'),
    'not_empty': lambda v: None if len(v) else 'cannot be empty',
    'bounds': lambda v, lo, hi: None if lo <= v <= hi else
    f'value {_fmt(v)} must be within bounds [{_fmt(lo)}, {_fmt(hi)}]',
    'element_bounds': _elements(lambda x, lo, hi: lo <= x <= hi, 'within bounds'),
    'lower_element_bounds': _elements(lambda x, lo: x >= lo, 'above lower bound of'),
    'upper_element_bounds': _elements(lambda x, hi: x <= hi, 'below upper bound of'),
    'lt': _cmp(operator.lt, 'less than'),
    'gt': _cmp(operator.gt, 'greater than'),
    'lt_eq': _cmp(operator.le, 'less than or equal to'),
    'gt_eq': _cmp(operator.ge, 'greater than or equal to'),
    'joint_trajectory_controller::command_interface_type_combinations': _jtc_command_interfaces,
    'joint_trajectory_controller::state_interface_type_combinations': _jtc_state_interfaces,
}

_SCALARS = {'bool': bool, 'double': float, 'string': str}


def _type_error(declared, value):
    if isinstance(value, list) != declared.endswith('_array'):
        return f'value {_fmt(value)} is ' + ('a list but the parameter is ' if
                                             isinstance(value, list) else 'not ') + declared
    if isinstance(value, list):
        if not value:
            return "is an empty list, which rcl's YAML parser cannot type (write no value)"
        base = declared[:-len('_array')]
        bad = [x for x in value if _type_error(base, x)]
        return bool(bad) and f'element {_fmt(bad[0])} is not {base} ({declared})'
    if declared == 'int':
        ok = isinstance(value, int) and not isinstance(value, bool)
    elif declared in _SCALARS:
        ok = isinstance(value, _SCALARS[declared])
    else:
        return f'has declared type {declared}, which this check does not support'
    return not ok and f'value {_fmt(value)} is not {declared}' + (
        ' (write a float, e.g. 1.0)' if declared == 'double' and isinstance(value, int) else '')


def _expand(definition, values):
    """Concrete parameter name -> spec; a __map_<p> segment expands over param <p>'s values."""
    out = {}
    for name, spec in definition.items():
        names = ['']
        parts = name.split('.')
        struct = parts[:next((i for i, p in enumerate(parts) if p.startswith('__map_')), 0)]
        for part in parts:
            keys = [part]
            if part.startswith('__map_'):  # GPL: search the struct's scopes, then the root
                key = part[len('__map_'):]
                scopes = ['.'.join(struct[:i] + [key]) for i in range(len(struct), -1, -1)]
                found = next((values[s] for s in scopes if s in values), [])
                keys = [found] if isinstance(found, str) else found
                keys = [k for k in keys if isinstance(k, str)] if isinstance(keys, list) else []
            names = [f'{n}{k}.' for n in names for k in keys]
        out.update({n[:-1]: spec for n in names})
    return out


def _check_controller(ctrl, ctype, definition, params):
    errors, given = [], _flatten(params)
    values = {n: given.get(n, s.get('default_value')) for n, s in definition.items()}
    expanded = _expand(definition, values)
    errors += [f"{ctrl}: unknown parameter '{k}' for {ctype}" for k in given if k not in expanded]
    for key, spec in expanded.items():
        if key not in given and 'default_value' not in spec:
            errors.append(f"{ctrl}: missing required parameter '{key}' (it has no default_value)")
            continue
        value = given.get(key, spec.get('default_value'))
        if key in given and (bad := _type_error(spec['type'], value)):
            errors.append(f'{ctrl}: {key}: {bad}')
            continue
        where = '' if key in given else ' (default)'
        for vname, args in (spec.get('validation') or {}).items():
            func = VALIDATORS.get(vname.replace('<>', ''))
            if func is None:
                errors.append(f'{ctrl}: unsupported validator {vname} for key {key}')
                continue
            args = [] if args is None else args if isinstance(args, list) else [args]
            if msg := func(value, *args):
                errors.append(f'{ctrl}: {key} = {_fmt(value)}{where}: {msg} ({vname})')
    return errors


def validate(controllers_yaml_text: str, distro: str) -> list[str]:
    """Errors of a controllers YAML against the distro's definitions ([] = accepted)."""
    definitions = load_definitions(distro)
    try:
        doc = yaml.safe_load(controllers_yaml_text)
    except yaml.YAMLError as e:
        return [f'not YAML: {e}']
    if not isinstance(doc, dict):
        return ['not a mapping of node names']
    sections = {n: s.get('ros__parameters') if isinstance(s, dict) else None
                for n, s in doc.items()}
    if not isinstance(sections.get('controller_manager'), dict):
        return ['no controller_manager: ros__parameters: mapping']
    types = {n: c['type'] for n, c in sections.pop('controller_manager').items()
             if isinstance(c, dict) and 'type' in c}
    errors = [f"{n}: no 'ros__parameters' mapping" for n, s in sections.items()
              if not isinstance(s, dict)]
    errors += [f'{n}: has parameters but controller_manager declares no controller of that name'
               for n in sections if n not in types]
    for ctrl, ctype in types.items():
        if not isinstance(ctype, str) or ctype not in definitions:
            errors.append(f"{ctrl}: unknown controller type {ctype!r} for {distro} "
                          f"(known: {', '.join(sorted(definitions))})")
            continue
        params = sections.get(ctrl)
        errors += _check_controller(ctrl, ctype, definitions[ctype],
                                    params if isinstance(params, dict) else {})
    return errors
