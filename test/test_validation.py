"""hrdf_ros.hrdf.validation: the stable validate_file / validate_text API."""
import json
import os

import pytest

from hrdf_ros.hrdf.diagnostics import Diagnostic
from hrdf_ros.model import RobotModel
from hrdf_ros.hrdf.validation import ValidationReport, validate_file, validate_text

from conftest import BUNDLED_ARM, HEXAPOD, kit_id, KITS, REPO

ENTRY_KEYS = {'severity', 'file', 'line', 'column', 'element', 'attribute', 'message', 'code'}


@pytest.mark.parametrize('path', KITS, ids=kit_id)
def test_every_kit_validates_without_errors_or_warnings(path):
    report = validate_file(path)
    assert report.valid, [str(d) for d in report.errors]
    assert report.errors == [] and report.warnings == []
    assert isinstance(report.model, RobotModel) and report.model.dof_count >= 1


def test_valid_file_with_includes():
    report = validate_file(HEXAPOD)
    assert report.valid and report.model.dof_count == 18


def test_all_errors_are_collected_with_locations():
    text = ('<robot version="1.4.0">\n'
            '  <actuator type="X5-99" colour="red"/>\n'
            '  <link type="X5" extension="1 pi" twist="0"/>\n'
            '  <joint axis="RZ" tag="j"/>\n'
            '  <rigid-body mass="-2" tag="j"/>\n'
            '</robot>\n')
    report = validate_text(text, name='arm.hrdf')
    assert not report.valid and report.model is None
    got = [(d.line, d.column, d.element, d.attribute) for d in report.errors]
    assert got == [(2, 3, 'actuator', 'colour'), (2, 3, 'actuator', 'type'),
                   (3, 3, 'link', 'extension'), (5, 3, 'rigid-body', 'mass'),
                   (5, 3, 'rigid-body', 'tag')]
    [warning] = report.warnings
    assert (warning.line, warning.element, warning.attribute) == (4, 'joint', 'axis')
    assert 'matched "rz" ignoring case' in warning.message
    assert all(d.path == 'arm.hrdf' for d in report.errors + report.warnings)


def test_warnings_do_not_make_a_file_invalid():
    report = validate_text('<robot version="1.2.0"><actuator type="x5-1"/></robot>')
    assert report.valid and report.model is not None and len(report.warnings) == 1


def test_to_dict_shape_and_json():
    report = validate_text('<robot version="1.2.0">\n<actuator type="x5-1"/>\n'
                           '<joint axis="q"/></robot>', name='r.hrdf')
    data = json.loads(json.dumps(report.to_dict()))
    assert set(data) == {'valid', 'errors', 'warnings'}
    assert data['valid'] is False
    assert data['errors'] == [{'severity': 'error', 'file': 'r.hrdf', 'line': 3, 'column': 1,
                               'element': 'joint', 'attribute': 'axis', 'code': None,
                               'message': report.errors[0].message}]
    assert set(data['warnings'][0]) == ENTRY_KEYS
    assert data['warnings'][0]['element'] == 'actuator'
    assert data['warnings'][0]['code'] == 'enum-case'
    assert str(report.warnings[0]).endswith('[enum-case]')


def test_missing_file_is_an_error_at_line_0(tmp_path):
    missing = tmp_path / 'nope.hrdf'
    report = validate_file(missing)
    assert not report.valid and report.model is None
    [error] = report.errors
    assert (error.path, error.line, error.element) == (str(missing), 0, None)
    assert 'cannot read' in error.message
    report = validate_file(tmp_path)
    assert 'directory' in report.errors[0].message


def test_text_without_base_dir_rejects_include_with_a_clear_message():
    report = validate_text('<robot version="1.3.0">\n  <include path="leg.hrdf"/>\n</robot>')
    [error] = report.errors
    assert (error.line, error.column, error.element, error.attribute) == (2, 3, 'include',
                                                                         'path')
    assert 'includes need a base directory' in error.message


def test_text_with_base_dir_resolves_includes():
    with open(HEXAPOD, encoding='utf-8') as handle:
        text = handle.read()
    report = validate_text(text, base_dir=os.path.dirname(HEXAPOD), name='hexapod (text)')
    assert report.valid and report.model.dof_count == 18
    assert validate_text(text, base_dir=REPO).errors[0].element == 'include'


@pytest.mark.parametrize('text', ['', 'not xml', '<robot', b'\xff\xfe<robot/>',
                                  '<robot version="1.2.0"><actuator type="X5-1"></robot>'])
def test_never_raises_for_bad_content(text):
    report = validate_text(text)
    assert not report.valid and report.errors
    assert all(isinstance(d, Diagnostic) for d in report.errors)


def test_report_is_a_dataclass_with_the_documented_fields():
    report = validate_file(BUNDLED_ARM)
    assert isinstance(report, ValidationReport)
    assert (report.valid, report.errors, report.warnings) == (True, [], [])
    assert report.model.dof_count == 6
    assert report.to_dict() == {'valid': True, 'errors': [], 'warnings': []}


def test_package_exports_the_validation_api():
    import hrdf_ros
    assert hrdf_ros.validate_file is validate_file
    assert hrdf_ros.validate_text is validate_text
    assert hrdf_ros.ValidationReport is ValidationReport


@pytest.mark.parametrize('attrs,what', [
    ('ixx="1e-3" iyy="1e-3" izz="3e-3"', 'triangle inequality'),
    ('ixx="1e-3" iyy="1e-3" izz="1e-3" ixy="2e-3"', 'not positive semi-definite'),
    ('ixx="-1e-3" iyy="1e-3" izz="1e-3"', 'not positive semi-definite'),
])
def test_nonphysical_inertia_is_a_located_warning(attrs, what):
    report = validate_text(f'<robot version="1.2.0"><actuator type="X5-1"/>\n'
                           f'<rigid-body mass="0.5" {attrs}/></robot>', name='r.hrdf')
    assert report.valid
    [warning] = report.warnings
    assert (warning.line, warning.element, warning.code) == (2, 'rigid-body',
                                                             'nonphysical-inertia')
    assert warning.attribute.startswith('i') and what in warning.message


def test_physical_and_catalogue_inertias_give_no_warning():
    # a thin rod on the triangle-inequality boundary (A + B = C) is physical
    rod = validate_text('<robot version="1.2.0"><rigid-body mass="1" ixx="0.5" iyy="0.5" '
                        'izz="1"/><actuator type="X8-9" ixx="2.5e-4"/></robot>')
    assert rod.valid and rod.warnings == []
    for path in KITS + [BUNDLED_ARM, HEXAPOD]:
        assert validate_file(path).warnings == [], path
