"""Property test: mutated real HRDF files never crash or hang the reader.

Seeds are the 26 HEBI kits and the hexapod (whose includes resolve, so include handling
is exercised too). Mutations: delete, duplicate, swap and move elements; rename elements
and attributes; replace attribute values with hostile or random ones; truncate the text;
insert junk. The reader must either return a model (whose kinematics then work) or raise
hrdf_ros's own HrdfError whose every diagnostic is located; any other exception, or an
example slower than the deadline, fails.
"""
import copy
import os
import xml.etree.ElementTree as ET

import numpy as np
from hypothesis import HealthCheck, given, settings, strategies as st

from hrdf_ros import HrdfError, Kinematics, loads
from hrdf_ros.hrdf.versions import ATTRIBUTES

from conftest import HEXAPOD_DIR, KITS

SEEDS = [(open(p, encoding='utf-8').read(), None) for p in KITS]
SEEDS += [(open(os.path.join(HEXAPOD_DIR, name), encoding='utf-8').read(),
           os.path.dirname(os.path.join(HEXAPOD_DIR, name)))
          for name in ('hexapod.hrdf', 'legs/left_leg.hrdf')]

ELEMENT_NAMES = ['robot', 'actuator', 'link', 'bracket', 'rigid-body', 'joint',
                 'end-effector', 'include', 'output', 'Actuator', 'gripper', 'x']
ATTRIBUTE_NAMES = sorted({a for attrs in ATTRIBUTES.values() for a in attrs}
                         | {'version', 'rot', 'trans', 'path', 'description', 'bogus'})
VALUES = ['', ' ', '0', '-1', '1e400', '-1e-400', 'nan', 'inf', 'pi', 'PI', 'pi/0', '1/0',
          '(' * 100 + '1' + ')' * 100, '-' * 200 + '1', '((((', 'Rx(', 'Rx(pi)*', 'Rz(1e308)',
          '1 0 0 0 1 0 0 0 1', '1 2 3', '1,2,3', 'X5-1', 'x5-1', 'R25-R8', 'T25-40',
          'X5LightLeft', 'Inline', 'inline', 'rz', 'tx', 'Custom', 'R8Parallel', '1.0.0',
          '1.3.0', '1.6.0', '2.0.0', 'legs/left_leg.hrdf', '../hexapod.hrdf', 'hexapod.hrdf',
          '/etc/passwd', 'a\\b', 'https://x/y.stl', 'http://', '9' * 500]
JUNK = ['<', '>', '&', '&amp;', '&bogus;', '"', '<!--', '-->', '<![CDATA[x]]>', '\x00',
        '\ufffe', '<!DOCTYPE r [<!ENTITY a "b">]>', '<?pi x?>', '</robot>',
        '<include path="hexapod.hrdf"/>', '<output>', '<robot version="1.6.0">', 'text']

mutation = st.one_of(
    st.tuples(st.just('delete'), st.integers(0, 10 ** 6)),
    st.tuples(st.just('duplicate'), st.integers(0, 10 ** 6)),
    st.tuples(st.just('swap'), st.integers(0, 10 ** 6), st.integers(0, 10 ** 6)),
    st.tuples(st.just('move_into'), st.integers(0, 10 ** 6), st.integers(0, 10 ** 6)),
    st.tuples(st.just('rename'), st.integers(0, 10 ** 6), st.sampled_from(ELEMENT_NAMES)),
    st.tuples(st.just('value'), st.integers(0, 10 ** 6), st.sampled_from(ATTRIBUTE_NAMES),
              st.one_of(st.sampled_from(VALUES), st.text(max_size=12))),
    st.tuples(st.just('attribute_name'), st.integers(0, 10 ** 6),
              st.sampled_from(ATTRIBUTE_NAMES)),
)
text_mutation = st.one_of(  # mostly none: junk in the text mostly breaks the XML
    st.none(), st.none(), st.none(),
    st.tuples(st.just('truncate'), st.floats(0, 1)),
    st.tuples(st.just('insert'), st.floats(0, 1),
              st.one_of(st.sampled_from(JUNK), st.text(max_size=8))),
)


def _apply(root, op):
    nodes = list(root.iter())
    parents = {child: parent for parent in nodes for child in parent}
    pick = nodes[op[1] % len(nodes)]
    kind = op[0]
    if kind in ('delete', 'duplicate', 'swap', 'move_into') and pick is root:
        return
    if kind == 'delete':
        parents[pick].remove(pick)
    elif kind == 'duplicate':
        parent = parents[pick]
        parent.insert(list(parent).index(pick), copy.deepcopy(pick))
    elif kind == 'swap':
        other = nodes[op[2] % len(nodes)]
        if other is root or other is pick:
            return
        pick.tag, other.tag = other.tag, pick.tag
        pick.attrib, other.attrib = dict(other.attrib), dict(pick.attrib)
    elif kind == 'move_into':
        target = nodes[op[2] % len(nodes)]
        if pick in target.iter():  # would create a loop
            return
        parents[pick].remove(pick)
        target.append(pick)
    elif kind == 'rename':
        pick.tag = op[2]
    elif kind == 'value':
        pick.set(op[2], op[3])
    elif kind == 'attribute_name' and pick.attrib:
        names = sorted(pick.attrib)
        old = names[op[1] % len(names)]
        pick.set(op[2], pick.attrib.pop(old))


@st.composite
def mutated_documents(draw):
    text, base_dir = draw(st.sampled_from(SEEDS))
    root = ET.fromstring(text)
    for op in draw(st.lists(mutation, min_size=1, max_size=4)):
        _apply(root, op)
    out = ET.tostring(root, encoding='unicode')
    final = draw(text_mutation)
    if final is not None:
        at = int(final[1] * len(out))
        out = out[:at] if final[0] == 'truncate' else out[:at] + final[2] + out[at:]
    return out, base_dir


@settings(max_examples=300, deadline=5000, database=None,  # ms; generous on a shared CPU
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(mutated_documents())
def test_mutated_files_give_a_model_or_located_errors(document):
    text, base_dir = document
    try:
        model = loads(text, path='mutant.hrdf', base_dir=base_dir)
    except HrdfError as exc:
        assert exc.errors
        for d in exc.diagnostics:
            assert d.path and d.line >= 1 and d.column >= 0, str(d)
        return
    frames = Kinematics(model).forward_kinematics(np.zeros(model.dof_count))
    assert all(np.all(np.isfinite(f)) for f in frames.values())
