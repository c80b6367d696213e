"""``hrdf view design-1.hrdf --task TASK.yaml`` in a real browser (headless chromium,
software WebGL): the targets and the task's objects are drawn (the picture changes where
they are when "show targets" is switched), a target picked in the "target" list poses the
arm at that target's configuration (the positions of ``design-1.yaml`` beside the file,
exact), and a real click on a target's sphere does too: the end effector, by FK of the
positions the page shows, at the target within 1e-4 m (and 1e-4 rad where the target
asks an orientation). Without ``design-1.yaml`` the page solves the targets by
collision-free IK and poses the arm as well. A bad task or configurations file exits 2
with one line (a task or configurations file that is not the schema, or --floor beside
the task's own floor).

The design and its configurations are written by ``hrdf design``'s own writers
(:func:`hrdf_ros.design.output.design_yaml`, ``Design.hrdf``) from the design evaluator's
evaluation of an arm that is not a kit, on a task made from its own collision-free
states (one target each of a full pose, a tip axis and a position), with a floor and a
box.
"""
import shutil
import subprocess
import sys

import numpy as np
import pytest
import yaml

from browser import browser, view  # noqa: F401 - the fixtures
from browser import (open_page, page_text, pixels_a_checkbox_changes, project,
                     require_browser, wait_text)
from conftest import REPO
from design_helpers import generated_task
from hebi_description import prefix_env
from hrdf_ros import Kinematics, load
from hrdf_ros.design import task
from hrdf_ros.design.evaluate import Evaluator
from hrdf_ros.design.output import design_yaml
from hrdf_ros.view.task_targets import miss, target_label
from test_view_browser_ik import panel_left, shown_positions, wait_positions

require_browser()

LINE = 'X5-9 X5HeavyRightOutside X5-9 X5:0.2:pi X5-4 X5:0.2:pi X5-1 X5LightRight X5-1'
BOX = {'name': 'crate', 'type': 'box', 'dimensions': [0.1, 0.1, 0.1],
       'pose': {'position': [-0.4, -0.4, 0.05]}}
START = ['--meshes', 'primitives']




@pytest.fixture(scope='module')
def design_files(tmp_path_factory):
    """(folder, task path, the checked task, design-1.yaml's configurations)."""
    design, data, _ = generated_task(LINE, 3, 'tip_axis', seed=3, objects=[BOX])
    # the same states (same seed): the first target as a full pose, the last a position
    data['targets'][0] = generated_task(LINE, 3, 'full', seed=3,
                                        objects=[BOX])[1]['targets'][0]
    data['targets'][2] = {'xyz': data['targets'][2]['xyz']}
    data['targets'] = [{key: [float(v) for v in value] for key, value in t.items()}
                       for t in data['targets']]
    data['floor'] = -0.01
    job = task(data)
    evaluation = Evaluator(job).evaluate(design, size=False)
    assert evaluation.reached.all(), evaluation.reached
    folder = tmp_path_factory.mktemp('design')
    (folder / 'task.yaml').write_text(yaml.safe_dump(data))
    (folder / 'design-1.hrdf').write_text(design.hrdf(description='hrdf design: rank 1'))
    (folder / 'design-1.yaml').write_text(design_yaml(evaluation))
    return folder, str(folder / 'task.yaml'), job, evaluation.configurations


def pick(browser, job, index):
    """Choose target ``index`` in the page's "target" list (real clicks); the positions
    the page shows once they changed."""
    from selenium.webdriver.common.by import By
    before = shown_positions(browser)
    browser.find_element(By.XPATH, "//*[normalize-space(text())='target']/ancestor::*"
                                   "[.//input][1]//input").click()
    label = target_label(index, job.targets[index])
    browser.find_element(By.XPATH, f"//*[normalize-space(text())='{label}']").click()
    return wait_positions(browser, before)


def assert_at_target(path, target, q):
    distance, angle = miss(target, Kinematics(load(path)).end_effector(q))
    print(f'{target.orientation}: end effector {distance:.2e} m, {angle:.2e} rad from it')
    assert distance <= 1e-4 and angle <= 1e-4


def test_targets_are_drawn_and_a_target_picked_poses_the_arm(browser, view, design_files):
    folder, task_path, job, configurations = design_files
    path = str(folder / 'design-1.hrdf')
    process = view(path, *START, '--task', task_path)
    open_page(browser, process, 5, 'configurations from design-1.yaml')
    changed = pixels_a_checkbox_changes(browser, 'show targets')
    print(f'{changed} pixels change with the targets')
    assert changed > 300
    # the task's objects are drawn and checked: the floor and the crate
    wait_text(browser, r'Collisions: none', timeout=30)

    for index in (1, 0, 2):
        q = pick(browser, job, index)
        np.testing.assert_allclose(q, configurations[index], atol=1e-9)
        assert_at_target(path, job.targets[index], q)
        wait_text(browser, f'Target {index + 1}: .*configurations from design-1.yaml')

    # a real click on target 2's sphere (the arm is at target 3)
    from selenium.webdriver.common.action_chains import ActionChains
    canvas = browser.find_element('tag name', 'canvas').rect
    x, y = project(job.targets[1].position[None], canvas)[0]
    assert canvas['x'] < x < panel_left(browser) and \
        canvas['y'] < y < canvas['y'] + canvas['height']
    before = shown_positions(browser)
    body = browser.find_element('tag name', 'body')
    ActionChains(browser).move_to_element_with_offset(
        body, int(round(x - body.rect['width'] / 2)),
        int(round(y - body.rect['height'] / 2))).click().perform()
    q = wait_positions(browser, before)
    np.testing.assert_allclose(q, configurations[1], atol=1e-9)


def test_without_configurations_the_targets_are_solved(browser, view, design_files,
                                                       tmp_path):
    folder, task_path, job, _ = design_files
    path = str(tmp_path / 'arm.hrdf')
    shutil.copy(folder / 'design-1.hrdf', path)
    process = view(path, *START, '--task', task_path)
    open_page(browser, process, 5, 'Task')
    wait_text(browser, r'configurations by collision-free IK, 3 of 3 targets reached',
              timeout=60)
    for index in (0, 1, 2):
        q = pick(browser, job, index)
        assert_at_target(path, job.targets[index], q)
    assert 'not reached' not in page_text(browser)


@pytest.mark.parametrize('case', ['task', 'configurations', 'floor'])
def test_bad_files_exit_2_with_one_line(design_files, tmp_path, case):
    folder, task_path, _, _ = design_files
    args = ['--task', task_path]
    if case == 'task':
        bad = tmp_path / 'task.yaml'
        bad.write_text('targets:\n  - xyz: [0.3, .nan, 0.1]\n')
        args = ['--task', str(bad)]
        expected = 'targets[0].xyz must be finite numbers'
    elif case == 'floor':                                   # the task has a floor too
        args += ['--floor', '0']
        expected = "taken by --collision-objects or --floor"
    else:
        bad = tmp_path / 'design.yaml'
        data = yaml.safe_load((folder / 'design-1.yaml').read_text())
        data['configurations'] = data['configurations'][:2]
        bad.write_text(yaml.safe_dump(data))
        args += ['--configurations', str(bad)]
        expected = 'the task has 3 targets, the file 2 lists'
    run = subprocess.run([sys.executable, '-m', 'hrdf_ros.cli', 'view',
                          str(folder / 'design-1.hrdf'), '--port', '0', *args],
                         capture_output=True, text=True, timeout=60, cwd=REPO,
                         env=prefix_env())
    lines = [line for line in run.stderr.splitlines()
             if line.strip() and not line.startswith('hrdf view: loading')]
    assert run.returncode == 2 and len(lines) == 1 and expected in lines[0], run.stderr
