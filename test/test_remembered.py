"""The sampled part of a robot's semantics kept on disk (hrdf_ros.description.remembered):
read back exactly as computed, never read when it is not what was written, and never
in the way when the cache folder cannot be written."""
import glob
import json
import os
import subprocess
import sys

import pytest

from hrdf_ros import load
from hrdf_ros.description import remembered, semantics as semantics_module
from hrdf_ros.description.robot import describe

from conftest import KITS_DIR

KIT = os.path.join(KITS_DIR, 'A-2085-06G.hrdf')


def _description():
    return describe(load(KIT), 'robot')


def _sampled(result):
    return result.disabled, result.states, result.floor


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv('HRDF_ROS_CACHE_DIR', str(tmp_path))
    monkeypatch.setattr(semantics_module, '_REMEMBERED', type(semantics_module._REMEMBERED)())
    return tmp_path


def _refuse_sampling(monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError('sampled again')
    monkeypatch.setattr(semantics_module, 'collision_matrix', refuse)


def test_a_later_call_reads_what_was_computed_without_sampling(cache, monkeypatch):
    first = semantics_module.semantics(_description(), samples=2000)
    [path] = glob.glob(str(cache / 'semantics' / '*.json'))
    semantics_module._REMEMBERED.clear()
    _refuse_sampling(monkeypatch)
    again = semantics_module.semantics(_description(), samples=2000)
    assert again is not first
    assert _sampled(again) == _sampled(first)
    assert list(again.disabled) == list(first.disabled)          # the same order
    assert again.checked_pairs == first.checked_pairs
    with pytest.raises(AssertionError, match='sampled again'):   # another key samples
        semantics_module.semantics(_description(), samples=2001)
    assert os.path.isfile(path)


def test_another_process_reads_the_same_result(cache):
    """A second process with the same cache folder gets what the first computed, bit for
    bit (floats through JSON), and does not sample."""
    code = ('import json, sys\n'
            'from hrdf_ros import load\n'
            'from hrdf_ros.description import semantics as s\n'
            'from hrdf_ros.description.robot import describe\n'
            'if sys.argv[2] == "refuse":\n'
            '    def refuse(*a, **k):\n'
            '        raise SystemExit("sampled again")\n'
            '    s.collision_matrix = refuse\n'
            'r = s.semantics(describe(load(sys.argv[1]), "robot"))\n'
            'print(json.dumps([sorted(map(list, r.disabled.items())), r.states,'
            ' r.floor.hex()]))\n')
    outputs = []
    for mode in ('compute', 'refuse'):
        result = subprocess.run([sys.executable, '-c', code, KIT, mode], capture_output=True,
                                text=True, timeout=300, env=dict(os.environ))
        assert result.returncode == 0, result.stderr
        outputs.append(result.stdout)
    assert outputs[0] == outputs[1]
    home = json.loads(outputs[0])[1]['home']
    assert home and all(v for v in home.values())


@pytest.mark.parametrize('damage', ['not json {', '{"disabled": [], "homes": {}}',
                                    '{"disabled": [["a", "b"]], "homes": {}, "floor": 0.0}',
                                    '{"disabled": [], "homes": {"g": {"j": "x"}}, '
                                    '"floor": 0.0}',
                                    '{"disabled": [], "homes": {}, "floor": NaN}'])
def test_a_damaged_file_is_computed_again(cache, damage):
    first = semantics_module.semantics(_description(), samples=1000)
    [path] = glob.glob(str(cache / 'semantics' / '*.json'))
    with open(path, 'w', encoding='utf-8') as handle:
        handle.write(damage)
    semantics_module._REMEMBERED.clear()
    again = semantics_module.semantics(_description(), samples=1000)
    assert _sampled(again) == _sampled(first)
    with open(path, encoding='utf-8') as handle:      # replaced by the result
        assert remembered._valid(json.load(handle))


def test_a_folder_that_cannot_be_written_keeps_nothing(tmp_path, monkeypatch):
    blocker = tmp_path / 'file'
    blocker.write_text('not a folder')
    monkeypatch.setenv('HRDF_ROS_CACHE_DIR', str(blocker))
    monkeypatch.setattr(semantics_module, '_REMEMBERED', type(semantics_module._REMEMBERED)())
    result = semantics_module.semantics(_description(), samples=1000)
    assert result.disabled
    assert blocker.read_text() == 'not a folder'


def test_other_code_reads_nothing(cache, monkeypatch):
    """The key holds the code's digest: a result of other code is not read."""
    semantics_module.semantics(_description(), samples=1000)
    semantics_module._REMEMBERED.clear()
    monkeypatch.setattr(remembered, 'code_digest', lambda: 'other code')
    _refuse_sampling(monkeypatch)
    with pytest.raises(AssertionError, match='sampled again'):
        semantics_module.semantics(_description(), samples=1000)


def test_the_code_digest_covers_every_module_of_the_package(tmp_path):
    """A change to any module the collision matrix depends on (here motion/ and parts/,
    outside description/) gives another digest; so does a new module."""
    import shutil
    package = os.path.dirname(os.path.dirname(os.path.abspath(remembered.__file__)))
    copy = tmp_path / 'hrdf_ros'
    shutil.copytree(package, copy, ignore=shutil.ignore_patterns('__pycache__'))
    assert remembered.tree_digest(str(copy)) == remembered.code_digest()
    seen = {remembered.code_digest()}
    for relative in ('motion/shape_distances.py', 'parts/__init__.py', 'model.py'):
        with open(copy / relative, 'a', encoding='utf-8') as handle:
            handle.write('\n# changed\n')
        seen.add(remembered.tree_digest(str(copy)))
    (copy / 'kinematics' / 'new_module.py').write_text('X = 1\n', encoding='utf-8')
    seen.add(remembered.tree_digest(str(copy)))
    assert len(seen) == 5


def test_only_results_are_stored():
    with pytest.raises(ValueError):
        remembered.store('key', {'disabled': [], 'homes': {}, 'floor': float('inf')})
