"""The invalid-HRDF corpus: one file per rule, its expected diagnostic in one table.

test/invalid/expected.yaml lists, per file, the rule it breaks and the one error it must
produce (file, line, element, attribute, message substring). Every case must fail with
exactly that many errors (no cascades), and never with anything but a located
diagnostic. The spec's float and formula examples are also run through whole documents.
"""
import glob
import os

import pytest
import yaml

from hrdf_ros import HrdfError, load, loads
from hrdf_ros.hrdf.validation import validate_file

from conftest import REPO
from test_expressions import (SPEC_INVALID_FLOATS, SPEC_INVALID_FORMULAS, SPEC_VALID_FLOATS,
                              SPEC_VALID_FORMULAS)

CORPUS = os.path.join(REPO, 'test', 'invalid')
with open(os.path.join(CORPUS, 'expected.yaml'), encoding='utf-8') as _handle:
    EXPECTED = yaml.safe_load(_handle)
FILES = sorted(os.path.basename(p) for p in glob.glob(os.path.join(CORPUS, '*.hrdf')))


def test_every_file_has_exactly_one_table_entry():
    assert sorted(EXPECTED) == FILES
    assert len(FILES) >= 40
    for name, entry in EXPECTED.items():
        assert {'rule', 'line', 'element', 'message'} <= set(entry), name


@pytest.mark.parametrize('name', FILES)
def test_invalid_file_gives_its_expected_error(name):
    expected = EXPECTED[name]
    path = os.path.join(CORPUS, name)
    report = validate_file(path)
    assert not report.valid and report.model is None
    errors = report.errors
    assert len(errors) == expected.get('count', 1), [str(d) for d in errors]
    want_file = os.path.normpath(os.path.join(CORPUS, expected.get('file', name)))
    matches = [d for d in errors
               if os.path.normpath(d.path) == want_file and d.line == expected['line']
               and d.element == expected['element']
               and d.attribute == expected.get('attribute')
               and expected['message'] in d.message]
    assert matches, f'expected {expected}, got {[str(d) for d in errors]}'
    # The rendered form carries the location, compiler style.
    assert str(matches[0]).startswith(f'{matches[0].path}:{expected["line"]}:')
    # load() raises the same diagnostics as HrdfError (and nothing else).
    with pytest.raises(HrdfError) as info:
        load(path)
    assert info.value.errors == errors


# -- the spec's float and formula examples, inside documents -------------------------------
def _twist(value, version='1.6.0'):
    return (f'<robot version="{version}"><actuator type="X5-1"/>'
            f'<link type="X5" extension="0.3" twist="{value}"/></robot>')


@pytest.mark.parametrize('text', sorted(SPEC_VALID_FORMULAS))
def test_spec_formulas_are_accepted_in_formula_attributes(text):
    model = loads(_twist(text))
    assert model.elements[1].kind == 'link'


@pytest.mark.parametrize('text', SPEC_INVALID_FORMULAS)
def test_spec_invalid_formulas_are_located_errors(text):
    with pytest.raises(HrdfError) as info:
        loads(_twist(text), 'arm.hrdf')
    [error] = info.value.errors
    assert (error.path, error.line, error.element, error.attribute) == ('arm.hrdf', 1, 'link',
                                                                      'twist')


@pytest.mark.parametrize('text', sorted(SPEC_VALID_FLOATS))
def test_spec_floats_are_accepted_in_translations_and_1_0_0_values(text):
    loads(f'<robot version="1.6.0"><rigid-body mass="1" output_trans="{text} 0 {text}"/>'
          '</robot>')
    loads(_twist(text, version='1.0.0'))


@pytest.mark.parametrize('text', SPEC_INVALID_FLOATS)
def test_spec_invalid_floats_are_rejected_where_floats_are_required(text):
    # a translation entry: whitespace splits entries, so "- 1.3" and "1. 02" miscount
    with pytest.raises(HrdfError) as info:
        loads(f'<robot version="1.6.0"><rigid-body mass="1" output_trans="{text} 0 0"/>'
              '</robot>')
    assert info.value.errors[0].attribute == 'output_trans'
    # a 1.0.0 file has plain floats where later versions have formulas ("- 1.3" is a
    # formula, so it is rejected there as needing 1.1.0)
    with pytest.raises(HrdfError) as info:
        loads(_twist(text, version='1.0.0'))
    assert info.value.errors[0].attribute == 'twist'


# -- where hebi-py 2.16.1 is more lenient than the spec -----------------------------------
#: Corpus files hebi-py 2.16.1 imports without an error (hrdf_ros rejects all of them).
HEBI_ACCEPTS = {
    'bad_float.hrdf', 'translation_formula.hrdf',   # reads "2,000" as 2, "pi" as 0
    'bad_float_v1_0.hrdf', 'version_gated_formula.hrdf',  # "2.4.3" read as 2.4
    'formula_division_by_zero.hrdf',                # NaN frames
    'gear_ratio_zero.hrdf',                         # NaN frames
    'negative_mass.hrdf', 'negative_mass_after_offset.hrdf',
    'misspelled_root.hrdf', 'unsupported_version.hrdf',
    'include_misspelled_root.hrdf',                 # silently includes nothing
    'mesh_url_scheme.hrdf',
    'duplicate_xml_attribute.hrdf', 'entity_expansion.hrdf', 'external_entity.hrdf',
    'deep_nesting.hrdf',
}
#: hebi-py 2.16.1 crashes the process (SIGSEGV) on these; not run in-process.
HEBI_CRASHES = {'include_self.hrdf', 'include_cycle.hrdf'}


def test_hebi_leniencies_are_known(hebi_import):
    import_from_hrdf, _ = hebi_import
    accepted = set()
    for name in FILES:
        if name in HEBI_CRASHES:
            continue
        try:
            import_from_hrdf(os.path.join(CORPUS, name))
            accepted.add(name)
        except RuntimeError:
            pass
    assert accepted == HEBI_ACCEPTS
