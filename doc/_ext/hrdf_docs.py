"""Sphinx extension of hrdf_ros's documentation: the reference, generated from the code.

Directives, for the MyST pages of ``doc/reference`` (each writes Markdown that is parsed
in place, so their output reads like the hand-written pages around it):

``{hrdf-cli}``
    every ``hrdf`` subcommand, from the parser the command itself uses
    (:func:`hrdf_ros.cli.main.build_parser`), one section each, labelled
    ``cli-<subcommand>``.
``{hrdf-parameters}``
    the node's parameters, from :data:`hrdf_ros.ros.parameter_table.PARAMETERS` (the table
    the node declares its parameters from); with an argument, another such table
    (``hrdf_ros.ros.web_view.WEB_VIEW_PARAMETERS``).
``{hrdf-topics}``
    its topics, QoS and ``qos_overrides`` parameters, from :data:`hrdf_ros.ros.qos.TOPICS`
    (the table the node creates its publishers and subscription from).
``{hrdf-services}``
    its services, from :data:`hrdf_ros.ros.services.SERVICES`.
``{hrdf-interfaces}``
    every ``.msg`` and ``.srv`` file of ``interfaces/hrdf_ros_interfaces``, verbatim, each
    under a label ``interface-<name in lower case>``.
``{hrdf-leniency-codes}``
    the warning codes, :func:`hrdf_ros.hrdf.leniency.markdown_table`.

The functions building that Markdown (``*_markdown``) are plain functions, so tests can
check the pages against the code without running Sphinx.

References into the package that autodoc does not document (``:mod:`.qos``` in a
docstring, a type hint naming ``hrdf_ros.model.RobotModel``) are resolved by
:func:`resolve_package_reference`: to the public name's entry when the object is one of
``hrdf_ros``'s public names, else to plain text, but only when the name really exists in
the package. Any other unresolved reference stays a warning, which ``-W`` turns into a
failed build. A public constant documented under its public name (``hrdf_ros.FRAME_TYPES``)
gets the ``#:`` comment of the module defining it (:func:`public_data_doc`).
"""
from __future__ import annotations

import argparse
import glob
import importlib
import os
import re
import sys
from typing import Iterable, List, Optional

from docutils import nodes
from docutils.statemachine import StringList
from sphinx.util.docutils import SphinxDirective

PACKAGE = 'hrdf_ros'
INTERFACE_PACKAGE = 'hrdf_ros_interfaces'


def _repository_root() -> str:
    """The folder holding the hrdf_ros package imported here (the source tree)."""
    package = importlib.import_module(PACKAGE)
    return os.path.dirname(os.path.dirname(os.path.abspath(package.__file__)))


def _cell(text: str) -> str:
    """A Markdown table cell: no line breaks, ``|`` escaped."""
    return ' '.join(str(text).split()).replace('|', '\\|')


def _table(header: Iterable[str], rows: Iterable[Iterable[str]]) -> List[str]:
    """A GitHub-flavoured Markdown table, one line per row."""
    header = list(header)
    lines = ['| ' + ' | '.join(header) + ' |', '|' + '---|' * len(header)]
    lines += ['| ' + ' | '.join(_cell(c) for c in row) + ' |' for row in rows]
    return lines


def _plain(text: str) -> str:
    """Plain text (an argparse help) as Markdown that shows it as it is: every character
    Markdown could read as markup is backslash-escaped (``|`` is left to :func:`_cell`)."""
    return re.sub(r'([\\`*_\[\]<>{}#~$])', r'\\\1', ' '.join(text.split()))


def _code(text: str) -> str:
    """Inline code for a value (``""`` for an empty string)."""
    return f'`{text}`' if text else '`""`'


def _value(value) -> str:
    """A parameter value as written in a ROS parameter file (YAML)."""
    if isinstance(value, bool):
        return _code('true' if value else 'false')
    if isinstance(value, str):
        return _code(value)
    return _code(repr(value))


# -- the hrdf command ----------------------------------------------------------------

def _usage(parser) -> str:
    return ' '.join(parser.format_usage().split()).replace('usage: ', '', 1)


def _subparsers(parser):
    """(name, help, parser) of each subcommand of ``parser``, in the parser's order."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            helps = {a.dest: a.help for a in action._choices_actions}
            for name, sub in action.choices.items():
                yield name, helps.get(name) or '', sub


def _argument_rows(parser) -> List[tuple]:
    """(invocation, help) of every argument but ``--help`` and subcommands."""
    formatter = parser._get_formatter()
    rows = []
    for action in parser._actions:
        if isinstance(action, (argparse._HelpAction, argparse._SubParsersAction)):
            continue
        invocation = formatter._format_action_invocation(action)
        text = _plain(formatter._expand_help(action)) if action.help else ''
        if action.option_strings and action.required:
            text = f'(required) {text}'
        shown = (action.option_strings and action.nargs != 0
                 and action.default not in (None, argparse.SUPPRESS)
                 and 'default' not in text)
        if shown:
            text = f'{text} (default: `{action.default}`)'.strip()
        rows.append((f'`{invocation}`', text or ' '))
    return rows


def cli_markdown() -> List[str]:
    """Every subcommand of ``hrdf``, from :func:`hrdf_ros.cli.main.build_parser`: usage,
    what it does, and a table of its arguments with their help, choices and defaults."""
    from hrdf_ros.cli.main import build_parser
    parser = build_parser()
    lines = ['```text', _usage(parser), '```', '']
    for name, help_text, sub in _subparsers(parser):
        lines += [f'(cli-{name})=', f'## `hrdf {name}`', '', _plain(help_text) + '.', '',
                  '```text', _usage(sub), '```', '']
        lines += _table(('argument', ''), _argument_rows(sub)) + ['']
    return lines


# -- the node ------------------------------------------------------------------------

_ACCESS_TEXT = {'read-only': 'read-only', 'settable': 'settable',
                'output': 'set by the node', 'start': 'read at start'}
#: the table ``{hrdf-parameters}`` renders without an argument
NODE_PARAMETERS = 'hrdf_ros.ros.parameter_table.PARAMETERS'


def parameters_markdown(table: str = NODE_PARAMETERS) -> List[str]:
    """The parameter table of a node, from a tuple of ``ParameterSpec`` named by its
    dotted path (``hrdf_ros.ros.parameter_table.PARAMETERS``, the default); the column
    comparing with robot_state_publisher only when an entry fills it."""
    specs = _find(table)
    if not specs:
        raise ValueError(f'no parameter table {table}')
    compare = any(spec.robot_state_publisher for spec in specs)
    rows = []
    for spec in specs:
        default = spec.shown_default or _value(spec.default)
        if spec.value_range is not None:
            values = f'{spec.value_range[0]:g} to {spec.value_range[1]:g}'
        else:
            values = ', '.join(_code(c) for c in spec.choices)
        row = (f'`{spec.name}`', spec.type_name, default, values,
               _ACCESS_TEXT[spec.access], spec.description)
        rows.append(row + ((spec.robot_state_publisher or '(none)',) if compare else ()))
    header = ('parameter', 'type', 'default', 'values', 'at run time', 'meaning')
    return _table(header + (('robot_state_publisher',) if compare else ()), rows)


def qos_text(profile) -> str:
    """A QoS profile in words: ``reliable, transient local, keep last 1``."""
    def word(policy):
        return policy.name.lower().replace('_', ' ')
    history = word(profile.history)
    if history == 'keep last':
        history = f'keep last {profile.depth}'
    return f'{word(profile.reliability)}, {word(profile.durability)}, {history}'


def overrides_text(topic) -> str:
    """The ``qos_overrides`` parameters a topic accepts (node in the root namespace)."""
    if topic.overrides is None:
        return '(none)'
    name = topic.name if topic.name.startswith('/') else '/' + topic.name
    entity = 'publisher' if topic.published else 'subscription'
    policies = ','.join(kind.name.lower() for kind in topic.overrides.policy_kinds)
    return f'`qos_overrides.{name}.{entity}.{{{policies}}}`'


def topics_markdown() -> List[str]:
    """The topic table of the node reference, from ``TOPICS``."""
    from hrdf_ros.ros.qos import TOPICS
    rows = [(f'`{t.name}`', f'`{t.type_name}`',
             'published' if t.published else 'subscribed', qos_text(t.qos),
             overrides_text(t), t.description, t.robot_state_publisher) for t in TOPICS]
    return _table(('topic', 'type', '', 'QoS', 'QoS override parameters', 'hrdf_ros_node',
                   'robot_state_publisher'), rows)


def interface_label(name: str) -> str:
    """The label of an interface file's entry: ``interface-getjacobian``."""
    return f'interface-{name.lower()}'


def services_markdown() -> List[str]:
    """The service table of the node reference, from ``SERVICES``."""
    from hrdf_ros.ros.services import SERVICES
    rows = []
    for service in SERVICES:
        name = service.srv_type.__name__
        rows.append((f'`{service.name}`',
                     f'{{ref}}`{INTERFACE_PACKAGE}/srv/{name} <{interface_label(name)}>`',
                     service.description))
    return _table(('service', 'type', ''), rows)


def interface_files(root: Optional[str] = None) -> List[str]:
    """The interface files, messages, services then actions, each sorted by name."""
    folder = os.path.join(root or _repository_root(), 'interfaces', INTERFACE_PACKAGE)
    return (sorted(glob.glob(os.path.join(folder, 'msg', '*.msg')))
            + sorted(glob.glob(os.path.join(folder, 'srv', '*.srv')))
            + sorted(glob.glob(os.path.join(folder, 'action', '*.action'))))


def interfaces_markdown(root: Optional[str] = None) -> List[str]:
    """Every interface file: a label, its ROS type name and its text, verbatim."""
    lines: List[str] = []
    for path in interface_files(root):
        kind = os.path.basename(os.path.dirname(path))
        name = os.path.splitext(os.path.basename(path))[0]
        with open(path, encoding='utf-8') as stream:
            text = stream.read().rstrip('\n')
        fence = '`' * max(3, _longest_backtick_run(text) + 1)
        lines += [f'({interface_label(name)})=', '',
                  f'**`{INTERFACE_PACKAGE}/{kind}/{name}`**', '',
                  fence + 'text', *text.split('\n'), fence, '']
    return lines


def _longest_backtick_run(text: str) -> int:
    run = longest = 0
    for char in text:
        run = run + 1 if char == '`' else 0
        longest = max(longest, run)
    return longest


def leniency_markdown() -> List[str]:
    """The warning code table, :func:`hrdf_ros.hrdf.leniency.markdown_table`."""
    from hrdf_ros.hrdf.leniency import markdown_table
    return markdown_table().rstrip('\n').split('\n')


# -- directives ----------------------------------------------------------------------

class _MarkdownDirective(SphinxDirective):
    """A directive whose output is Markdown, parsed where the directive stands."""

    has_content = False
    required_arguments = 0
    optional_arguments = 0

    def markdown(self) -> List[str]:
        raise NotImplementedError

    def dependencies(self) -> List[str]:
        """Files whose change must rebuild the page (besides the code)."""
        return []

    #: True when the Markdown has headings (sections below the page's own).
    sections = False

    def run(self):
        for path in self.dependencies():
            self.env.note_dependency(path)
        container = nodes.container()
        source = self.get_source_info()[0]
        content = StringList(self.markdown(), source=f'{source} ({self.name})')
        self.state.nested_parse(content, self.content_offset, container,
                                match_titles=self.sections)
        return container.children


def _directive(build, dependencies=None, sections=False, optional_arguments=0):
    """A directive rendering ``build(*arguments)``."""
    return type(build.__name__, (_MarkdownDirective,), {
        'markdown': lambda self: build(*self.arguments),
        'dependencies': lambda self: dependencies() if dependencies else [],
        'sections': sections, 'optional_arguments': optional_arguments})


# -- references into the package -----------------------------------------------------

def _find(dotted: str):
    """The object named ``dotted`` (module, then attributes), or None."""
    parts = dotted.split('.')
    for split in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module('.'.join(parts[:split]))
        except ImportError:
            continue
        try:
            for attribute in parts[split:]:
                obj = getattr(obj, attribute)
        except AttributeError:
            return None
        return obj
    return None


def _candidates(target: str, module: Optional[str]) -> List[str]:
    """Full names ``target`` may mean, seen from ``module`` (Python's relative names
    included: ``.qos`` from ``hrdf_ros.ros.node`` is ``hrdf_ros.ros.qos``)."""
    names = []
    stripped = target.lstrip('.')
    if module:
        parts = module.split('.')
        if target.startswith('.'):
            up = len(target) - len(stripped)
            names.append('.'.join(parts[:len(parts) - up] + [stripped]))
        names += ['.'.join(parts[:k] + [stripped]) for k in range(len(parts), 0, -1)]
    names.append(stripped)
    return [n for n in dict.fromkeys(names) if n.split('.')[0] == PACKAGE]


def resolve_package_reference(app, env, node, contnode):
    """``missing-reference`` handler: a Python reference to an existing object of the
    package that autodoc does not document resolves to its public entry
    (``hrdf_ros.<name>``) or to plain text; anything else is left unresolved."""
    if node.get('refdomain') != 'py':
        return None
    for name in _candidates(node['reftarget'], node.get('py:module')):
        obj = _find(name)
        if obj is None:
            continue
        public = getattr(obj, '__name__', None)
        if public and public in getattr(importlib.import_module(PACKAGE), '__all__', ()):
            if _find(f'{PACKAGE}.{public}') is obj:
                domain = env.domains['py']
                reference = domain.resolve_xref(env, node['refdoc'], app.builder,
                                                node['reftype'], f'{PACKAGE}.{public}',
                                                node, contnode)
                if reference is not None:
                    return reference
        return contnode
    return None


def public_data_doc(app, what, name, obj, options, lines):
    """``autodoc-process-docstring`` handler: a public constant documented under its
    public name (``hrdf_ros.FRAME_TYPES``) gets the ``#:`` comment written where it is
    defined, in the package module that binds the same object with such a comment."""
    if what != 'data' or not name.startswith(PACKAGE + '.'):
        return
    # autodoc's fallback for a value without a doc comment is its type's docstring
    # (``tuple``'s, for a tuple): that is no documentation of the constant.
    inherited = ' '.join((type(obj).__doc__ or '').split())
    if lines and ' '.join(' '.join(lines).split()) != inherited:
        return
    from sphinx.pycode import ModuleAnalyzer
    short = name.rsplit('.', 1)[1]
    for module_name, module in sorted(sys.modules.items()):
        if not module_name.startswith(PACKAGE + '.') or getattr(module, short, None) is not obj:
            continue
        try:
            docs = ModuleAnalyzer.for_module(module_name).find_attr_docs()
        except Exception:  # noqa: BLE001 - no source to analyse: look further
            continue
        comment = docs.get(('', short))
        if comment:
            lines[:] = comment
            return


def setup(app):
    """Register the directives and the reference resolver."""
    app.add_directive('hrdf-cli', _directive(cli_markdown, sections=True))
    app.add_directive('hrdf-parameters', _directive(parameters_markdown,
                                                    optional_arguments=1))
    app.add_directive('hrdf-topics', _directive(topics_markdown))
    app.add_directive('hrdf-services', _directive(services_markdown))
    app.add_directive('hrdf-interfaces', _directive(interfaces_markdown, interface_files))
    app.add_directive('hrdf-leniency-codes', _directive(leniency_markdown))
    app.connect('missing-reference', resolve_package_reference)
    app.connect('autodoc-process-docstring', public_data_doc)
    return {'version': '1', 'parallel_read_safe': True, 'parallel_write_safe': True}
