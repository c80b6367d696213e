"""hrdf design on tasks made from arms that are not kits (issue 47's acceptance): random
collision-free states of an arm written in the kit grammar, the targets its end effector
there, the payload 0.9 of the least it holds over them. With the default budget on two
workers, the best design meets each task by independent oracles:

* hebi-py's FK of the written configurations reaches each target (1 mm, 0.01 rad);
* mplib's FCL, on the URDF and SRDF of ``hrdf moveit`` with the task's objects, finds
  every configuration free;
* hebi-py's gravity compensation efforts plus ``m g J_v^T z`` (hebi-py's Jacobian) stay
  within hebi-py's ``max_efforts``;
* its mass by hebi-py is at most 1.05 times the generating arm's, and the mass_kg that
  designs.csv would write (1 g).

Three tasks: 5 DoF with tip axes, 6 DoF with full poses and a wall, 4 DoF position only.
"""
import pytest

from hrdf_ros.design import design_arm, task
from hrdf_ros.design.output import designs_csv

from design_helpers import generated_task, hebi_verdict, mplib_with_boxes

pytest.importorskip('optuna')

#: A wall beside the arm (y from -0.325 m to -0.275 m, 1 m long and tall): states
#: through it are out, and so is every configuration through it.
WALL = {'name': 'wall', 'type': 'box', 'dimensions': [1.0, 0.05, 1.0],
        'pose': {'position': [0.0, -0.3, 0.3]}}
TARGETS = 8
TASKS = {
    '5-DoF tip axes': ('X5-9 X5HeavyRightOutside X5-9 X5:0.2:pi X5-4 X5:0.2:pi X5-1 '
                       'X5LightRight X5-1', 'tip_axis', ()),
    '6-DoF full poses and a wall': ('X5-9 X5HeavyRightOutside X8-9 X5:0.25:pi X5-9 '
                                    'X5:0.2:pi X5-4 X5LightRight X5-1 X5LightRight X5-1',
                                    'full', (WALL,)),
    '4-DoF position only': ('X5-4 X5HeavyRightOutside X5-9 X5:0.25:pi X5-4 X5:0.15:pi X5-1',
                            'none', ()),
}


@pytest.mark.parametrize('name', list(TASKS))
def test_the_best_design_meets_a_task_made_from_an_arm_that_is_not_a_kit(name, tmp_path):
    line, orientation, objects = TASKS[name]
    generator, data, generator_mass = generated_task(line, TARGETS, orientation, seed=0,
                                                     objects=objects)
    job = task(data)
    result = design_arm(job, workers=2)
    best = result.best[0]
    assert best.meets, (best.design.text(), best.rank_key())
    path = tmp_path / 'design.hrdf'
    path.write_text(best.design.hrdf(), encoding='utf-8')
    hebi = hebi_verdict(path, job, best.configurations)
    assert hebi['position'].max() < 1e-3 and hebi['angle'].max() < 0.01
    assert hebi['ratios'].max() <= 1.0
    oracle = mplib_with_boxes(best.design.model(), tmp_path, objects)
    assert [k for k, q in enumerate(best.configurations) if oracle.collides(q)] == []
    assert hebi['mass'] <= 1.05 * generator_mass, (best.design.text(), hebi['mass'],
                                                   generator_mass, generator.text())
    written = designs_csv(result.ranked(), 1).splitlines()[1].split(',')
    assert abs(float(written[2]) - hebi['mass']) <= 1e-3
