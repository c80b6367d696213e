"""Interface compatibility (FORMAT.md "Interface types"), checked pair by pair against
hebi-py 2.16.1, which enforces the same table."""
import itertools

import pytest

from hrdf_ros.hrdf.compatibility import Interface, fits, input_interface, output_interface
from hrdf_ros.hrdf.validation import validate_text

# One element per row of the spec's interface table (and per family where rows use '*').
ELEMENTS = {
    'X5-1': '<actuator type="X5-1"/>', 'X8-16': '<actuator type="X8-16"/>',
    'R8-3': '<actuator type="R8-3"/>', 'T5-9': '<actuator type="T5-9"/>',
    'T8-3': '<actuator type="T8-3"/>', 'R25-40': '<actuator type="R25-40"/>',
    'T25-20': '<actuator type="T25-20"/>',
    'X5LightLeft': '<bracket type="X5LightLeft"/>',
    'R8HeavyRightOutside': '<bracket type="R8HeavyRightOutside"/>',
    'R25HeavyLeftInside': '<bracket type="R25HeavyLeftInside"/>',
    'link X5': '<link type="X5" extension="0.1" twist="0"/>',
    'link X5 inline': '<link type="X5" extension="0.1" twist="0" input="Inline" '
                      'output="Inline"/>',
    'link R8': '<link type="R8" extension="0.1" twist="0"/>',
    'link R25': '<link type="R25" extension="0.1" twist="0"/>',
    'link R25-R8': '<link type="R25-R8" extension="0.1" twist="0"/>',
    'rigid-body': '<rigid-body mass="1"/>', 'joint': '<joint axis="rz"/>',
    'Custom': '<end-effector/>', 'X5Parallel': '<end-effector type="X5Parallel"/>',
    'R8Parallel': '<end-effector type="R8Parallel"/>',
}
PARENTS = [k for k in ELEMENTS if '<end-effector' not in ELEMENTS[k]]
PAIRS = list(itertools.product(PARENTS, ELEMENTS))


def robot(*parts):
    return '<robot version="1.6.0">\n' + '\n'.join(parts) + '\n</robot>'


def hebi_accepts(import_string, text):
    try:
        import_string(text)
        return True
    except RuntimeError:
        return False


@pytest.fixture(scope='module')
def hebi_verdicts():
    from hebi.robot_model import import_from_hrdf_string
    return {(a, b): hebi_accepts(import_from_hrdf_string, robot(ELEMENTS[a], ELEMENTS[b]))
            for a, b in PAIRS}


def test_every_pair_is_judged_like_hebi(hebi_verdicts):
    disagreements = []
    for a, b in PAIRS:
        ours = validate_text(robot(ELEMENTS[a], ELEMENTS[b])).valid
        if ours != hebi_verdicts[(a, b)]:
            disagreements.append((a, b, ours))
    assert disagreements == []
    accepted = sum(hebi_verdicts.values())
    assert 0 < accepted < len(PAIRS)  # the matrix really has both outcomes


@pytest.mark.parametrize('name', sorted(ELEMENTS))
def test_every_element_may_come_first(name, hebi_import):
    _, import_string = hebi_import
    text = robot(ELEMENTS[name])
    assert validate_text(text).valid and hebi_accepts(import_string, text)


def test_wildcards_do_not_pass_interfaces_through(hebi_import):
    """X actuator -> joint -> R8 link: joint outputs fit anything (spec and hebi-py)."""
    _, import_string = hebi_import
    for middle in ('<joint axis="rz"/>', '<rigid-body mass="1"/>'):
        text = robot('<actuator type="X5-1"/>', middle, '<link type="R8" extension="0.1" '
                     'twist="0"/>')
        assert validate_text(text).valid and hebi_accepts(import_string, text)


def test_mismatch_message_names_both_elements_and_interfaces():
    report = validate_text(robot('<actuator type="X5-1"/>', '<bracket type="X5LightLeft"/>',
                                 '<actuator type="R8-3"/>'), name='arm.hrdf')
    [error] = report.errors
    assert (error.path, error.line, error.element, error.attribute) == ('arm.hrdf', 4,
                                                                      'actuator', 'type')
    for fragment in ('<actuator type="R8-3"> (line 4)', 'R8-AH-A',
                     '<bracket type="X5LightLeft"> (line 3)', 'X-AH-B', 'opposite polarity'):
        assert fragment in error.message


@pytest.mark.parametrize('gripper,after,ok', [
    ('X5Parallel', '<actuator type="X5-4"/>', True),
    ('X5Parallel', '<actuator type="R8-9"/>', False),
    ('R8Parallel', '<actuator type="T8-9"/>', True),
    ('R8Parallel', '<actuator type="X8-9"/>', False),
    ('R8Parallel', '<actuator type="R25-8"/>', False),
    ('X5Parallel', '<actuator type="X5-4"/><bracket type="X5LightRight"/>', False),
])
def test_parallel_grippers_only_on_matching_actuator_outputs(gripper, after, ok, hebi_import):
    _, import_string = hebi_import
    text = robot(after, f'<end-effector type="{gripper}"/>')
    assert validate_text(text).valid is ok
    assert hebi_accepts(import_string, text) is ok


def test_bracket_output_interface_applies_inside_output_elements(hebi_import):
    _, import_string = hebi_import
    good = robot('<actuator type="X5-1"/><bracket type="X5LightLeft"><output>'
                 '<actuator type="X5-1"/></output></bracket>')
    bad = good.replace('<output><actuator type="X5-1"/>', '<output><bracket type="X5LightLeft"/>')
    assert validate_text(good).valid and hebi_accepts(import_string, good)
    report = validate_text(bad)
    assert not report.valid and not hebi_accepts(import_string, bad)
    assert 'X-AH-B' in report.errors[0].message


def test_old_versions_are_checked_too(hebi_import):
    """hebi-py enforces interfaces in 1.0.0/1.1.0 files as well; so does hrdf_ros."""
    _, import_string = hebi_import
    for version in ('1.0.0', '1.1.0'):
        text = (f'<robot version="{version}"><actuator type="X5-1"/><actuator type="X5-1"/>'
                '</robot>')
        assert not validate_text(text).valid and not hebi_accepts(import_string, text)


def test_fits_rule():
    a = Interface('X', 'AO', 'A')
    assert fits(a, Interface('X', 'AO', 'B'))
    assert not fits(a, Interface('X', 'AO', 'A'))       # same polarity
    assert not fits(a, Interface('X', 'AH', 'B'))       # housing vs output
    assert not fits(a, Interface('R8', 'AO', 'B'))      # family
    assert fits(None, a) and fits(a, None)
    assert str(output_interface('link', 'R25-R8')) == 'R8-AH-B'
    assert str(input_interface('link', 'R25-R8')) == 'R25-AO-B'
    assert input_interface('end-effector', 'Custom') is None
    assert output_interface('rigid-body', None) is None
