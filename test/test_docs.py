"""The examples of the README and the documentation run as written.

The ros2 command lines of the docs are run by the real-CLI tests (test_ros_cli_*.py;
test_package.py checks the docs show each one). Here: the Python examples of the README
and of the tutorials, and the `hrdf` commands they start from, each run in a folder
holding what they name (the bundled arm under ``config/``).
"""
import os
import re
import shlex
import shutil
import subprocess
import sys

import pytest

from conftest import REPO


def _blocks(path, language):
    """The ```<language> blocks of a Markdown file of the repository."""
    text = open(os.path.join(REPO, path), encoding='utf-8').read()
    return re.findall(rf'^```{language}\n(.*?)^```', text, re.M | re.S)


def _run_python(code, cwd):
    result = subprocess.run([sys.executable, '-c', code], cwd=cwd, capture_output=True,
                            text=True, timeout=300,
                            env=dict(os.environ, PYTHONPATH=REPO + os.pathsep
                                     + os.environ.get('PYTHONPATH', '')))
    assert result.returncode == 0, result.stderr


def _run_hrdf(line, cwd):
    """One ``hrdf ...`` line of a bash block (its comment dropped), as ``python -m``."""
    words = shlex.split(line, comments=True)
    assert words[0] == 'hrdf', line
    result = subprocess.run([sys.executable, '-m', 'hrdf_ros.cli', *words[1:]], cwd=cwd,
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr


@pytest.fixture
def workdir(tmp_path):
    """A folder with config/x_series_arm_6dof.hrdf, as in the repository."""
    os.mkdir(tmp_path / 'config')
    shutil.copy(os.path.join(REPO, 'config', 'x_series_arm_6dof.hrdf'), tmp_path / 'config')
    return str(tmp_path)


@pytest.mark.parametrize('page', ['README.md', 'doc/tutorials/view_robot.md',
                                  'doc/tutorials/move_end_effector.md',
                                  'doc/explanation/servo.md'])
def test_python_examples_run(page, workdir):
    [code] = _blocks(page, 'python')
    _run_python(code, workdir)


#: A number in a transcript (not a digit inside a name such as J1 or x_series_arm_6dof).
TRANSCRIPT_NUMBER = r'(?<![\w.])-?(?:\d+\.?\d*|\.\d+)(?:e[-+]?\d+)?(?![\w.])'


def _same_transcript(shown: str, printed: str, tolerance: float) -> bool:
    """``printed`` is ``shown`` word for word, its numbers each within ``tolerance`` of
    the number shown at that place."""
    shown_parts = re.split(f'({TRANSCRIPT_NUMBER})', shown)
    printed_parts = re.split(f'({TRANSCRIPT_NUMBER})', printed)
    if len(shown_parts) != len(printed_parts):
        return False
    for k, (a, b) in enumerate(zip(shown_parts, printed_parts)):
        if k % 2 == 0 and a != b:
            return False
        if k % 2 == 1 and not abs(float(a) - float(b)) <= tolerance:
            return False
    return True


def test_transcript_comparison_catches_words_and_numbers():
    shown = 'J1  0.299961905\nJ2 -1.100133317 N m\n[1e-15, 2]'
    assert _same_transcript(shown, 'J1  0.2999619055\nJ2 -1.100133317 N m\n[-3e-16, 2]', 1e-9)
    assert not _same_transcript(shown, 'J1  0.299961915\nJ2 -1.100133317 N m\n[0, 2]', 1e-9)
    assert not _same_transcript(shown, 'J1  0.299961905\nJ2 -1.100133317 N\n[0, 2]', 1e-9)
    assert not _same_transcript(shown, 'J1  0.299961905\nJ2 -1.100133317 N m\n[0, 2, 3]',
                                1e-9)


def test_console_transcripts_are_what_the_commands_print(workdir):
    """doc/tutorials/move_end_effector.md: every ``$ hrdf ...`` of its console blocks
    prints what the page shows (stdout, then stderr), the words as shown and the numbers
    within the tolerance the page states (the last digits depend on the machine), and
    ``$ echo $?`` its exit code (the distances of an unreachable pose's best answer as
    any numbers: they depend on the time the search had)."""
    page = open(os.path.join(REPO, 'doc', 'tutorials', 'move_end_effector.md'),
                encoding='utf-8').read()
    tolerance = float(re.search(r'differ from the ones shown by at\s+most ([0-9.e-]+)',
                                page).group(1))
    assert tolerance <= 1e-9
    checked = 0
    for block in _blocks('doc/tutorials/move_end_effector.md', 'console'):
        commands = re.split(r'^\$ ', block, flags=re.M)[1:]
        code = None
        for command in commands:
            line, _, shown = command.partition('\n')
            if line == 'echo $?':
                assert shown.strip() == str(code), line
                continue
            words = shlex.split(line)
            assert words[0] == 'hrdf', line
            result = subprocess.run([sys.executable, '-m', 'hrdf_ros.cli', *words[1:]],
                                    cwd=workdir, capture_output=True, text=True,
                                    timeout=300)
            code = result.returncode
            printed = result.stdout + result.stderr
            # the search is bounded by counts: a miss prints the same numbers too
            assert _same_transcript(shown, printed, tolerance), (line, printed)
            checked += 1
    assert checked >= 5


def test_plan_motion_tutorial_runs(workdir):
    """doc/tutorials/plan_motion.md: its objects.yaml, its two ``hrdf plan`` commands (a
    plot written; exit 0: planned, the Cartesian line whole) and its Python example. The
    first command, with ``--plot``, is run by scripts/plan_motion_picture.py (the script
    that draws the page's picture runs exactly that line, the page's objects.yaml
    included), so the script is tested by the same run."""
    page = 'doc/tutorials/plan_motion.md'
    [objects] = _blocks(page, 'yaml')
    with open(os.path.join(workdir, 'objects.yaml'), 'w', encoding='utf-8') as handle:
        handle.write(objects)
    commands = [line for b in _blocks(page, 'bash') for line in b.splitlines()
                if line.startswith('hrdf plan')]
    assert len(commands) == 2 and '--plot plan.png' in commands[0]
    assert '--cartesian' in commands[1]
    plot = os.path.join(workdir, 'plan.png')
    assert _script('plan_motion_picture.py').main(['-o', plot]) == 0
    assert open(plot, 'rb').read(8) == b'\x89PNG\r\n\x1a\n' and os.path.getsize(plot) > 10000
    _run_hrdf(commands[1], workdir)
    # the first: MotionPlanner; the second, ~/move_to's client, runs in test_ros_move_to.py
    code, move_to = _blocks(page, 'python')
    assert 'MoveTo' in move_to
    _run_python(code, workdir)


def test_reach_tutorial_runs(workdir):
    """doc/tutorials/reach.md: its ``hrdf reach`` command prints what the console block
    shows (the first line's time and rate as any numbers; the others within 1e-3), writes
    the map and the plot, and its Python example runs."""
    page = 'doc/tutorials/reach.md'
    [command] = [line for b in _blocks(page, 'bash') for line in b.splitlines()
                 if line.startswith('hrdf reach config/')]
    [console] = _blocks(page, 'console')
    line, _, shown = console.partition('\n')
    assert line == '$ ' + command
    words = shlex.split(command)
    result = subprocess.run([sys.executable, '-m', 'hrdf_ros.cli', *words[1:]], cwd=workdir,
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    first, _, rest = result.stdout.partition('\n')
    shown_first, _, shown_rest = shown.partition('\n')
    parts = re.split(f'({TRANSCRIPT_NUMBER})', shown_first)
    pattern = ''.join(TRANSCRIPT_NUMBER if k % 2 else re.escape(part)
                      for k, part in enumerate(parts))
    assert re.fullmatch(pattern, first), first
    assert _same_transcript(shown_rest, rest, 1e-3), rest
    assert os.path.getsize(os.path.join(workdir, 'reach.png')) > 10000
    [code] = _blocks(page, 'python')
    _run_python(code, workdir)
    # the map on a table: the volumes the page quotes are the command's
    [table] = [line for b in _blocks(page, 'bash') for line in b.splitlines()
               if line.startswith('hrdf reach --floor')]
    result = subprocess.run([sys.executable, '-m', 'hrdf_ros.cli', *shlex.split(table)[1:]],
                            cwd=workdir, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[1].startswith('collisions: every configuration counted is free')
    volume = float(lines[2].split(':')[1].split()[0])
    half = float(lines[3].split(':')[1].split()[0])
    with open(os.path.join(REPO, page), encoding='utf-8') as handle:
        text = ' '.join(handle.read().split())
    assert f'to {volume:.2f} m^3, and the volume with an index of at least 0.5' in text
    assert f'to {half:.2f} m^3: the lower half' in text


def test_design_tutorial_runs(workdir):
    """doc/tutorials/design.md: its task file, its ``hrdf design`` command prints what the
    console block shows (the third line's time and rate as any numbers; the others
    within 1e-3), writes the files it lists and the plot, and its Python example runs."""
    pytest.importorskip('optuna')
    page = 'doc/tutorials/design.md'
    [task_file] = _blocks(page, 'yaml')
    with open(os.path.join(workdir, 'task.yaml'), 'w', encoding='utf-8') as handle:
        handle.write(task_file)
    [command] = [line for b in _blocks(page, 'bash') for line in b.splitlines()
                 if line.startswith('hrdf design task.yaml')][:1]
    [console] = _blocks(page, 'console')
    line, _, shown = console.partition('\n')
    assert line == '$ ' + command
    words = shlex.split(command)
    result = subprocess.run([sys.executable, '-m', 'hrdf_ros.cli', *words[1:],
                             '--workers', '2'], cwd=workdir, capture_output=True,
                            text=True, timeout=600)
    assert result.returncode == 0, result.stderr
    printed, shown = result.stdout.splitlines(), shown.rstrip('\n').splitlines()
    assert len(printed) == len(shown)
    for k, (a, b) in enumerate(zip(shown, printed)):
        if k == 2:      # evaluated 400 designs in <time> s (<rate> per second, 2 workers)
            parts = re.split(f'({TRANSCRIPT_NUMBER})', a)
            pattern = ''.join(TRANSCRIPT_NUMBER if j % 2 and j in (3, 5) else re.escape(p)
                              for j, p in enumerate(parts))
            assert re.fullmatch(pattern, b), b
        else:
            assert _same_transcript(a, b, 1e-3), b
    folder = os.path.join(workdir, 'designs')
    assert sorted(os.listdir(folder)) == sorted(['designs.csv'] + [
        f'design-{k}.{e}' for k in range(1, 6) for e in ('hrdf', 'yaml')])
    assert os.path.getsize(os.path.join(workdir, 'design.png')) > 20000
    [code] = _blocks(page, 'python')
    _run_python(code, workdir)


def test_mujoco_tutorial_runs(workdir):
    """doc/tutorials/mujoco.md: write the model of a G kit as the page shows, then run
    its Python example."""
    pytest.importorskip('mujoco')
    kit = os.path.join(REPO, '..', 'shared', 'hrdf', 'kits', 'A-2085-06G.hrdf')
    if not os.path.isfile(kit):
        pytest.skip('HEBI kits not found in ../shared/hrdf/kits')
    page = 'doc/tutorials/mujoco.md'
    [export] = [line for b in _blocks(page, 'bash') for line in b.splitlines()
                if line.startswith('hrdf mjcf')]
    _run_hrdf(export.replace('A-2085-06G.hrdf', kit).replace(
        'hebi_description/meshes', os.path.join(REPO, '..', 'shared', 'hebi_description',
                                                'meshes')), workdir)
    [code] = _blocks(page, 'python')
    _run_python(code, workdir)


def test_simulators_tutorial_runs(workdir):
    """doc/tutorials/simulators.md: export the arm, then load it in Drake, MuJoCo,
    PyBullet and Pinocchio as the page shows (make test installs all four)."""
    for module in ('pydrake', 'mujoco', 'pybullet', 'pinocchio'):
        pytest.importorskip(module)
    page = 'doc/tutorials/simulators.md'
    [export] = [b for b in _blocks(page, 'bash') if b.startswith('hrdf urdf')]
    for line in export.splitlines():
        _run_hrdf(line, workdir)
    assert os.path.isfile(os.path.join(workdir, 'arm.urdf'))
    assert os.path.isfile(os.path.join(workdir, 'arm.sdf'))
    for code in _blocks(page, 'python'):
        _run_python(code, workdir)


# -- pictures ------------------------------------------------------------------------------
#: every picture of doc/images and the script that makes it
PICTURES = {'hrdf_view.png': 'view_screenshot.py', 'frames.png': 'frame_diagram.py',
            'architecture.png': 'architecture_diagram.py', 'reach.png': 'reach_picture.py',
            'mujoco_scene.png': 'mujoco_picture.py', 'plan_motion.png': 'plan_motion_picture.py',
            'plan_view.png': 'plan_view_screenshot.py', 'design.png': 'design_picture.py'}


def _script(name):
    import importlib.util
    spec = importlib.util.spec_from_file_location(name[:-3], os.path.join(REPO, 'scripts', name))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_every_picture_is_made_by_a_script_and_shown():
    """doc/images holds exactly the pictures a script makes (its default output), and
    the README or a doc page shows each one; every picture a page shows exists."""
    images = os.path.join(REPO, 'doc', 'images')
    assert set(os.listdir(images)) == set(PICTURES)
    for picture, script in PICTURES.items():
        source = open(os.path.join(REPO, 'scripts', script), encoding='utf-8').read()
        # its default output: doc/images/<picture> (scripts/doc_picture.py for the diagrams)
        assert (f"'doc', 'images', '{picture}'" in source
                or f"picture_main(draw, '{picture}'" in source), script
    pages = ['README.md'] + [os.path.relpath(os.path.join(folder, name), REPO)
                             for folder, _, names in os.walk(os.path.join(REPO, 'doc'))
                             for name in names if name.endswith('.md')]
    shown = set()
    for page in pages:
        text = open(os.path.join(REPO, page), encoding='utf-8').read()
        for target in re.findall(r'(?:\]\(|```\{figure\} )([^)\s]+\.png)', text):
            path = os.path.normpath(os.path.join(REPO, os.path.dirname(page), target))
            assert os.path.isfile(path), f'{page}: {target}'
            shown.add(os.path.basename(path))
    assert shown == set(PICTURES)


@pytest.mark.parametrize('script', ['frame_diagram.py', 'architecture_diagram.py',
                                    'reach_picture.py'])    # plan_motion_picture.py: above
def test_diagram_scripts_draw(script, tmp_path):
    pytest.importorskip('matplotlib')      # make test installs it (scripts/requirements-docs.txt)
    out = str(tmp_path / 'picture.png')
    # the reach maps at 0.2 m, not the picture's 0.05 m: the same drawing in 3 s
    coarse = ['--voxel', '0.2'] if script == 'reach_picture.py' else []
    assert _script(script).main(['-o', out, *coarse]) == 0
    assert open(out, 'rb').read(8) == b'\x89PNG\r\n\x1a\n'


def test_architecture_diagram_has_the_layers_of_test_layers():
    from test_layers import LAYERS
    assert [name for name, _, _ in _script('architecture_diagram.py').LAYERS] == LAYERS
