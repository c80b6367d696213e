"""The documentation builds without a warning, its reference shows what the code says,
and a broken reference or link fails the build.

``make docs`` (and so CI) runs ``sphinx-build -W -n``: every warning, unresolved
reference and broken link between pages is an error. Here: one build of doc/ as
``make docs`` does it (into a temporary folder, about 4 s), the generated reference
pages checked against the tables and the parser they come from, then one copy of doc/
with a defect on each of several lines (a label, a page, a heading, a Python object that
do not exist), whose build must fail with a warning naming each.
"""
import html
import importlib
import os
import re
import shutil
import subprocess
import sys

import pytest

from conftest import REPO

DOC = os.path.join(REPO, 'doc')
#: the options of `make docs` (Makefile), checked below to stay the same
SPHINX_OPTIONS = ['-W', '-n', '--keep-going', '-E', '-q']


def _sphinx(source, output, builder='html'):
    return subprocess.run([sys.executable, '-m', 'sphinx', *SPHINX_OPTIONS, '-b', builder,
                           source, output], capture_output=True, text=True, timeout=600)


def _docs_extension():
    sys.path.insert(0, os.path.join(DOC, '_ext'))
    try:
        return importlib.import_module('hrdf_docs')
    finally:
        sys.path.pop(0)


@pytest.fixture(scope='module')
def built(tmp_path_factory):
    """The HTML of doc/, built as `make docs` builds it."""
    output = tmp_path_factory.mktemp('docs') / 'html'
    result = _sphinx(DOC, str(output))
    assert result.returncode == 0, result.stdout + result.stderr
    assert 'WARNING' not in result.stderr and 'ERROR' not in result.stderr, result.stderr
    return output


def _text(built, page):
    """The words of a built page: tags dropped, entities decoded, spaces collapsed."""
    markup = (built / f'{page}.html').read_text(encoding='utf-8')
    markup = re.sub(r'</?(td|th|tr|p|div|h\d|li|pre|dt|dd)\b[^>]*>', ' ', markup)
    return ' '.join(html.unescape(re.sub(r'<[^>]+>', '', markup)).split())


def test_make_docs_builds_as_this_test_does():
    makefile = open(os.path.join(REPO, 'Makefile'), encoding='utf-8').read()
    assert f'-m sphinx {" ".join(SPHINX_OPTIONS)} -b html doc build/docs/html' in makefile
    ci = open(os.path.join(REPO, '.ci', 'run'), encoding='utf-8').read()
    assert re.search(r'^make docs$', ci, re.M)


def test_docs_build_without_a_warning(built):
    assert (built / 'index.html').is_file()
    for page in ('getting_started', 'tutorials/index', 'howto/index', 'reference/index',
                 'explanation/index'):
        assert (built / f'{page}.html').is_file(), page


def test_cli_reference_shows_every_subcommand_and_option(built):
    from hrdf_ros.cli.main import build_parser
    hrdf_docs = _docs_extension()
    text = _text(built, 'reference/cli')
    for name, help_text, parser in hrdf_docs._subparsers(build_parser()):
        assert f'hrdf {name}' in text and ' '.join(help_text.split()) in text, name
        for action in parser._actions:
            if '--help' in action.option_strings:
                continue
            for option in action.option_strings:
                assert option in text, (name, option)
            if action.help:
                assert ' '.join(action.help.split()) in text, (name, action.dest)


def test_node_reference_shows_every_parameter_topic_and_service(built):
    from hrdf_ros.ros.parameter_table import PARAMETERS
    from hrdf_ros.ros.qos import TOPICS
    from hrdf_ros.ros.services import SERVICES
    hrdf_docs = _docs_extension()
    text = _text(built, 'reference/node')
    for spec in PARAMETERS:
        assert f'{spec.name} {spec.type_name}' in text, spec.name
        assert ' '.join(spec.description.replace('`', '').split()) in text, spec.name
    for topic in TOPICS:
        assert f'{topic.name} {topic.type_name}' in text, topic.name
        assert hrdf_docs.qos_text(topic.qos) in text, topic.name
    assert 'qos_overrides./tf.publisher.{depth,durability,history,reliability}' in text
    for service in SERVICES:
        assert f'{service.name} hrdf_ros_interfaces/srv/{service.srv_type.__name__}' in text
    from hrdf_ros.ros.web_view import WEB_VIEW_PARAMETERS
    web_view = text[text.index('The web view node'):]
    for spec in WEB_VIEW_PARAMETERS:
        assert f'{spec.name} {spec.type_name}' in web_view, spec.name


def test_interfaces_reference_shows_every_file_verbatim(built):
    hrdf_docs = _docs_extension()
    files = hrdf_docs.interface_files()
    assert len(files) == 13       # HrdfDiagnostic, eleven services and the MoveTo action
    markup = (built / 'reference' / 'interfaces.html').read_text(encoding='utf-8')
    page = html.unescape(re.sub(r'<[^>]+>', '', markup))
    for path in files:
        text = open(path, encoding='utf-8').read().rstrip('\n')
        assert text in page, path


def test_leniency_reference_shows_every_code(built):
    from hrdf_ros.hrdf.leniency import WARNING_CODES
    text = _text(built, 'reference/leniency')
    for code, warning in WARNING_CODES.items():
        assert code in text and ' '.join(warning.hebi.replace('`', '').split()) in text


def test_api_reference_documents_every_public_name(built):
    import hrdf_ros
    markup = (built / 'reference' / 'api.html').read_text(encoding='utf-8')
    for name in hrdf_ros.__all__:
        assert f'id="hrdf_ros.{name}"' in markup, name


def test_the_labels_other_pages_link_to_exist(built):
    for page, label in (('cli', 'reference-cli'), ('node', 'reference-node'),
                        ('interfaces', 'reference-interfaces'), ('api', 'reference-api'),
                        ('leniency', 'reference-leniency')):
        markup = (built / 'reference' / f'{page}.html').read_text(encoding='utf-8')
        assert f'id="{label}"' in markup, label


DEFECTS = {
    'a label': ('{ref}`reference-no-such-label`', "undefined label: 'reference-no-such-label'"),
    'a page': ('[a page](no_such_page.md)', 'no_such_page.md'),
    'a heading': ('[a heading](node.md#no-such-heading)', "'no-such-heading'"),
    'a file outside doc/': ('[a file](../../NO_SUCH_FILE.md)', 'NO_SUCH_FILE.md'),
    'a Python object': ('{py:class}`hrdf_ros.NoSuchClass`', 'hrdf_ros.NoSuchClass'),
    'a module of the package': ('{py:mod}`hrdf_ros.ros.no_such_module`',
                                'hrdf_ros.ros.no_such_module'),
}


@pytest.fixture(scope='module')
def broken_build(tmp_path_factory):
    """stderr of one build of a copy of doc/ with every defect of :data:`DEFECTS` on a
    line of its own (``--keep-going`` reports each; under ``-W`` any one of them is an
    error by itself), and its exit code."""
    root = tmp_path_factory.mktemp('broken')
    source = root / 'doc'
    shutil.copytree(DOC, source, ignore=shutil.ignore_patterns('__pycache__'))
    with open(source / 'reference' / 'index.md', 'a', encoding='utf-8') as page:
        for markdown, _ in DEFECTS.values():
            page.write(f'\nA broken one: {markdown}\n')
    # the dummy builder resolves every reference as html does, without writing pages
    result = _sphinx(str(source), str(root / 'out'), builder='dummy')
    return result.returncode, result.stderr


@pytest.mark.parametrize('defect', sorted(DEFECTS))
def test_a_broken_reference_or_link_fails_the_build(defect, broken_build):
    """What CI relies on: `make docs` fails on a reference or a link to nothing, with a
    warning that names it."""
    _, message = DEFECTS[defect]
    code, stderr = broken_build
    assert code != 0, defect
    assert any(message in line and ('WARNING' in line or 'ERROR' in line)
               for line in stderr.splitlines()), stderr


def test_the_same_reference_to_something_that_exists_builds(tmp_path):
    """The counterpart of the defects above: they fail for being broken, nothing else."""
    source = tmp_path / 'doc'
    shutil.copytree(DOC, source, ignore=shutil.ignore_patterns('__pycache__'))
    with open(source / 'reference' / 'index.md', 'a', encoding='utf-8') as page:
        page.write('\nWorking ones: {ref}`reference-node`, [a page](node.md), '
                   '[a heading](node.md#topics-and-qos), [a label](reference-cli), '
                   '{py:class}`hrdf_ros.Kinematics`, {py:mod}`hrdf_ros.ros.qos` (not '
                   'documented, but it exists).\n')
    result = _sphinx(str(source), str(tmp_path / 'out'), builder='dummy')
    assert result.returncode == 0, result.stderr
