"""Check a CoBRA solution with timor-python 1.1.1, offline: ``python timor_check.py TASK.json
SOLUTION.json ROBOT.urdf ROBOT.srdf``; prints one JSON line: ``valid``, the failed
constraints and goals, Timor's torques' worst ratio to the URDF's effort limits, the
cost.

Run it in a subprocess with ``HOME`` set to a scratch folder (:func:`offline_home`):
timor-python, when imported, reads ``~/.config/timor.config`` and loads the JSON schemas
from the folder its ``[FILE_LOCATIONS] schema_dir`` names (downloading them from CoBRA
when missing), and asks CoBRA for its list of robots. Neither can be reached here, and
the schemas are not on PyPI. So:

* :func:`offline_home` writes the configuration file with ``schema_dir`` in the scratch
  folder, and there permissive schemas (``$schema`` and ``$id`` only: the task's and
  solution's layout is then not checked by a schema; Timor's reader still reads every
  key it needs);
* this script makes cobra-io's ``cobra.robot.robot.get_available_module_dbs`` raise
  ``TimeoutError`` before timor is imported: what it raises when the site does not
  answer in time, which Timor handles (a warning, its bundled robots only). Without it
  the request fails otherwise and Timor's import dies with ``UnboundLocalError``.

The robot is ``PinRobot.from_urdf``; its collision pairs every pair of its collision
geometries but those of links the SRDF disables (Pinocchio's ``removeCollisionPairs``),
its TCP the solution's ``tcpFrame``, and the solution Timor's ``SolutionTrajectory`` with
``CycleTime()`` as cost and the solution's ``basePose``.
"""
import json
import os
import sys

SCHEMAS = ('PoseSchema', 'TaskSchema', 'ModuleSchema', 'SolutionSchema')


def go_offline() -> None:
    """Make CoBRA's robot list "time out" (module docstring); call before importing
    timor."""
    import importlib

    def unreachable(*_args, **_kwargs):
        raise TimeoutError('CoBRA cannot be reached offline')

    importlib.import_module('cobra.robot.robot').get_available_module_dbs = unreachable


#: Python that goes offline first, for running a snippet that imports timor (its
#: environment's PYTHONPATH holds this folder).
OFFLINE_PRELUDE = 'import timor_check\ntimor_check.go_offline()\n'


def offline_home(folder: str) -> dict:
    """Write timor-python's configuration and permissive schemas under ``folder`` (a
    scratch ``HOME``); returns the environment to run this script in."""
    schema_dir = os.path.join(folder, 'schemata')
    os.makedirs(schema_dir, exist_ok=True)
    os.makedirs(os.path.join(folder, '.config'), exist_ok=True)
    for name in SCHEMAS:
        with open(os.path.join(schema_dir, name + '.json'), 'w', encoding='utf-8') as f:
            json.dump({'$schema': 'https://json-schema.org/draft/2020-12/schema',
                       '$id': f'file://{schema_dir}/{name}.json'}, f)
    with open(os.path.join(folder, '.config', 'timor.config'), 'w', encoding='utf-8') as f:
        f.write(f'[FILE_LOCATIONS]\nschema_dir = {schema_dir}\n')
    path = os.pathsep.join(p for p in (os.path.dirname(os.path.abspath(__file__)),
                                       os.environ.get('PYTHONPATH')) if p)
    return dict(os.environ, HOME=folder, PYTHONPATH=path)


def check(task_path, folder, k: int, scratch) -> dict:
    """Timor's verdict on ``folder``'s design-K solution for ``task_path``: ``hrdf moveit
    design-K.hrdf`` gives the SRDF, this script runs in a subprocess with ``HOME`` in
    ``scratch`` (:func:`offline_home`); its JSON line as a dict."""
    import subprocess
    folder, scratch = str(folder), str(scratch)
    package = os.path.join(scratch, 'moveit')
    subprocess.run([sys.executable, '-m', 'hrdf_ros.cli', 'moveit',
                    os.path.join(folder, f'design-{k}.hrdf'), '-o', package],
                   check=True, capture_output=True, timeout=300)
    done = subprocess.run(
        [sys.executable, __file__, task_path, os.path.join(folder, f'design-{k}.solution.json'),
         os.path.join(folder, f'design-{k}.urdf'),
         os.path.join(package, 'config', f'design-{k}.srdf')],
        env=offline_home(os.path.join(scratch, 'home')), capture_output=True, text=True,
        timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def main(task_path, solution_path, urdf_path, srdf_path):
    go_offline()
    import numpy as np
    import pinocchio as pin
    from timor.Robot import PinRobot
    from timor.task.CostFunctions import CycleTime
    from timor.task.Solution import SolutionTrajectory
    from timor.task.Task import Task
    from timor.utilities.trajectory import Trajectory

    task = Task.from_json_file(task_path)
    with open(solution_path, encoding='utf-8') as f:
        solution = json.load(f)
    robot = PinRobot.from_urdf(urdf_path, os.path.dirname(urdf_path))
    names = [robot.model.names[i] for i in range(1, robot.model.njoints)]
    robot.collision.removeAllCollisionPairs()
    robot.collision.addAllCollisionPairs()
    pin.removeCollisionPairs(robot.model, robot.collision, srdf_path)
    robot.collision_data = robot.collision.createData()
    robot.tcp = robot.model.getFrameId(solution['tcpFrame'])
    data = solution['trajectory']
    trajectory = Trajectory(t=np.array(data['t']), q=np.array(data['q']),
                            dq=np.array(data['dq']), ddq=np.array(data['ddq']),
                            goal2time=data['goal2time'])
    result = SolutionTrajectory(trajectory, {'taskID': solution['taskID']}, task, robot,
                                CycleTime(), np.array(solution['basePose'][0]))
    tau = result.torques
    print(json.dumps({
        'valid': bool(result.valid),
        'failed_constraints': [type(c).__name__ for c in result.failed_constraints],
        'failed_goals': [g.id for g in result.failed_goals],
        'joint_names': names,
        'collision_pairs': len(robot.collision.collisionPairs),
        'torque_ratio': float(np.max(np.abs(tau) / robot.joint_torque_limits)),
        'cost': float(result.cost),
        'samples': len(data['t'])}))


if __name__ == '__main__':
    main(*sys.argv[1:5])
