"""One evaluation of hrdf design (hrdf_ros.design.evaluate), checked by hebi-py: a kit
meets a task made from its own states (hebi-py's FK reaches each target with the
configurations found, its efforts stay within max_efforts, its masses sum to the mass);
sizing keeps the geometry and picks, per joint, the lightest actuator of its size that
holds (one lighter would not, by hebi-py); a target out of reach, inside an object, or
a payload too heavy is reported as such."""
import os

import numpy as np
import pytest

from hrdf_ros import Kinematics, load
from hrdf_ros.design import design_of, task
from hrdf_ros.design.evaluate import Evaluator, chain_length
from hrdf_ros.design.space import size_of, variants

from conftest import KITS_DIR
from design_helpers import free_states, hebi_verdict, targets_at

KIT = os.path.join(KITS_DIR, 'A-2085-05.hrdf')


@pytest.fixture(scope='module')
def kit_task():
    model = load(KIT)
    states = free_states(model, 6, seed=3)
    targets = targets_at(Kinematics(model), states, 'tip_axis')
    return design_of(model), task({'targets': targets, 'payload': 0.3})


def _written(design, tmp_path, name='design.hrdf'):
    path = tmp_path / name
    path.write_text(design.hrdf(), encoding='utf-8')
    return path


def test_a_kit_meets_a_task_made_from_its_own_states(kit_task, tmp_path):
    design, job = kit_task
    result = Evaluator(job).evaluate(design, size=False)
    assert result.design == design
    assert result.meets and result.reached.all() and result.rank_key()[:2] == (0, 0.0)
    hebi = hebi_verdict(_written(design, tmp_path), job, result.configurations)
    assert hebi['position'].max() < 1e-3 and hebi['angle'].max() < 0.01
    np.testing.assert_allclose(hebi['ratios'].max(axis=1), result.effort_ratios,
                               rtol=1e-9, atol=1e-12)
    np.testing.assert_array_equal(hebi['ratios'].argmax(axis=1), result.binding_joints)
    assert hebi['ratios'].max() <= 1.0
    assert result.mass == pytest.approx(hebi['mass'], abs=1e-9)
    assert result.joint_names == tuple(load(KIT).joint_names())


def test_sizing_keeps_the_geometry_and_picks_the_lightest_that_holds(kit_task, tmp_path):
    design, job = kit_task
    sold = Evaluator(job).evaluate(design, size=False)
    sized = Evaluator(job).evaluate(design)
    assert sized.meets
    assert [size_of(a) for a in sized.design.actuators] == \
        [size_of(a) for a in design.actuators]
    assert sized.design.connectors == design.connectors
    assert sized.mass < sold.mass          # A-2085-05's X8-16 shoulder is more than 0.3 kg needs
    hebi = hebi_verdict(_written(sized.design, tmp_path), job, sized.configurations)
    assert hebi['position'].max() < 1e-3 and hebi['angle'].max() < 0.01
    assert hebi['ratios'].max() <= 1.0
    assert sized.mass == pytest.approx(hebi['mass'], abs=1e-9)
    lighter = 0
    for k, actuator in enumerate(sized.design.actuators):
        choices = variants(size_of(actuator))
        if choices.index(actuator) == 0:
            continue
        # one lighter at joint k: hebi-py finds joint k over its rated effort
        swapped = list(sized.design.actuators)
        swapped[k] = choices[choices.index(actuator) - 1]
        other = sized.design.with_actuators(swapped)
        verdict = hebi_verdict(_written(other, tmp_path, f'{k}.hrdf'), job,
                               sized.configurations)
        assert verdict['ratios'][:, k].max() > 1.0, (k, swapped)
        lighter += 1
    assert lighter >= 1


def test_a_target_out_of_reach_is_missed_and_counted(kit_task):
    design, job = kit_task
    far = task({'targets': [{'xyz': [2.5, 0.0, 0.3]}] + [
        {'xyz': t.position.tolist()} for t in job.targets[:2]], 'payload': 0.3})
    assert chain_length(design.model()) < 2.5
    result = Evaluator(far).evaluate(design)
    assert result.reached.tolist() == [False, True, True]
    assert result.effort_ratios[0] == np.inf and result.binding_joints[0] == -1
    assert not result.meets and result.rank_key()[0] == 1
    assert np.isfinite(result.configurations).all()


def test_a_target_inside_an_object_is_not_reached(kit_task):
    design, job = kit_task
    point = job.targets[0].position.tolist()
    box = {'name': 'box', 'type': 'box', 'dimensions': [0.12, 0.12, 0.12],
           'pose': {'position': point}}
    free = Evaluator(task({'targets': [{'xyz': point}]})).evaluate(design)
    boxed = Evaluator(task({'targets': [{'xyz': point}], 'collision_objects': [box]}))
    assert free.meets
    assert not boxed.evaluate(design).reached[0]


def test_a_payload_too_heavy_is_reached_over_the_efforts(kit_task, tmp_path):
    design, job = kit_task
    heavy = task({'targets': [{'xyz': t.position.tolist(),
                               'tip_axis': t.pose[:3, 2].tolist()} for t in job.targets[:3]],
                  'payload': 6.0})
    result = Evaluator(heavy).evaluate(design, size=False)
    assert result.reached.all() and not result.meets
    assert result.effort_excess > 0 and result.worst_effort_ratio > 1.0
    hebi = hebi_verdict(_written(design, tmp_path), heavy, result.configurations)
    np.testing.assert_allclose(hebi['ratios'].max(axis=1), result.effort_ratios,
                               rtol=1e-9)
    np.testing.assert_array_equal(hebi['ratios'].argmax(axis=1), result.binding_joints)


def test_an_evaluation_is_the_same_every_time(kit_task):
    design, job = kit_task
    first = Evaluator(job).evaluate(design)
    again = Evaluator(job).evaluate(design)
    assert first.design == again.design
    assert first.configurations.tobytes() == again.configurations.tobytes()
    assert first.effort_ratios.tobytes() == again.effort_ratios.tobytes()
