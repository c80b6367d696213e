"""The MJCF hrdf_ros writes (``hrdf mjcf``), in MuJoCo (PyPI) and Drake's MJCF parser.

For every robot of consumers.CASES (the kits, the bundled arm, both hexapods, a geared
tree, the real files hebi-py loads, two HEBI-config robots): scene.xml loads with
nothing on stderr, with no contact at ``home`` (neither itself nor the floor), steps 1 s
from ``home`` with no MuJoCo warning and nothing NaN; every
body is where hebi-py puts its element's input frame, end-effector frame or gripper part
(1e-9) at random configurations; the total mass is within 0.1 % of hebi-py's (exact
with ``exact_masses`` but for the bodies MuJoCo refuses without mass). For every kit:
held at ``home`` for 3 s with gravity, each arm joint within 0.05 rad by the position
actuators alone and within 1e-6 rad with gravity compensation; a G kit's gripper
closes to 80 % within 2 s and its other finger follows within 0.01 rad. Drake's MJCF
parser loads each kit's robot.xml, puts every body where hebi-py does, and warns only
about the elements listed in :data:`DRAKE_IGNORES`.

Marker ``consumers`` (MuJoCo and Drake come with ``make test-consumers``).
"""
import functools
import os
import re

import numpy as np
import pytest

from hrdf_ros.cli import main
from hrdf_ros.description.inertials import FILL_MASS, link_inertials
from hrdf_ros.export.mjcf import mjcf_files

from conftest import KITS
from consumers import CASES, assert_pose, parametrize_cases, reference, transform

pytestmark = pytest.mark.consumers
KIT_CASES = [c for c in CASES if c.path in KITS]
G_CASES = [c for c in KIT_CASES if c.path.endswith('G.hrdf')]
#: What Drake's MJCF parser (1.51) says it ignores in these files, and nothing else:
#: each line a pattern of its warning.
DRAKE_IGNORES = {
    r"The attribute 'balanceinertia' found in a 'compiler' tag is currently unsupported",
    r"The attribute '(integrator|timestep)' found in a 'option' tag is currently unsupported",
    r"The attribute 'gravcomp' found in a 'body' tag is currently unsupported",
    r"The attribute '(actuatorfrcrange|actuatorgravcomp)' found in a 'joint' tag is "
    r"currently unsupported",
    r"The tag 'site' found as a child of 'body' is currently unsupported",
    r"The tag 'joint' found as a child of 'equality' is currently unsupported",
    r"The tag 'keyframe' found as a child of 'mujoco' is currently unsupported",
    r"The motor '[^']+' specified a ctrlrange attribute where lower limit != -upper limit. "
    r"Asymmetrical effort limits are not supported yet",
}
HOLD_TOLERANCE = 0.05       # rad
HOLD_TIME = 3.0             # s
CLOSED_FRACTION = 0.8
CLOSE_TIME = 2.0            # s
FOLLOW_TOLERANCE = 0.01     # rad


@functools.lru_cache(maxsize=None)
def written(case, folder, variant=''):
    """(folder with robot.xml and scene.xml, reference) of a case; ``variant``: '',
    ``exact`` (exact masses; no collision sampling, which masses do not depend on) or
    ``gravcomp`` (gravity compensation)."""
    ref = reference(case)
    options = {'exact': dict(samples=0, exact_masses=True),
               'gravcomp': dict(gravity_compensation=True)}.get(variant, {})
    files = mjcf_files(ref.model, 'robot', tree=ref.tree, position_limits=ref.limits,
                       **options)
    path = os.path.join(folder, case.id + variant)
    os.makedirs(path, exist_ok=True)
    for name, text in files.items():
        with open(os.path.join(path, name), 'w', encoding='utf-8') as handle:
            handle.write(text)
    return path, ref


@pytest.fixture(scope='module')
def folder(tmp_path_factory):
    return str(tmp_path_factory.mktemp('mjcf'))


def load_scene(mujoco, path, capfd):
    model = mujoco.MjModel.from_xml_path(os.path.join(path, 'scene.xml'))
    assert capfd.readouterr().err == ''
    return model


def at_home(mujoco, path, capfd):
    """(model, data) of the scene in ``path``, data reset to the home keyframe."""
    model = load_scene(mujoco, path, capfd)
    data = mujoco.MjData(model)
    mujoco.mj_resetDataKeyframe(model, data, model.key('home').id)
    return model, data


def hebi_total(ref):
    return float(np.sum(ref.masses))


@parametrize_cases()
def test_mujoco_loads_steps_and_places_every_body(case, folder, capfd):
    mujoco = pytest.importorskip('mujoco', reason='mujoco not installed (make test-consumers)')
    path, ref = written(case, folder)
    model, data = at_home(mujoco, path, capfd)
    # home touches neither the robot itself nor the floor (MuJoCo's own collision check)
    mujoco.mj_forward(model, data)
    assert data.ncon == 0, [(model.body(model.geom_bodyid[c.geom1]).name,
                             model.body(model.geom_bodyid[c.geom2]).name)
                            for c in data.contact[:data.ncon]]
    for _ in range(round(1.0 / model.opt.timestep)):
        mujoco.mj_step(model, data)
    assert [w.number for w in data.warning] == [0] * len(data.warning)
    assert np.all(np.isfinite(data.qpos)) and np.all(np.isfinite(data.qvel))
    total = float(model.body_subtreemass[0])
    assert hebi_total(ref) <= total <= hebi_total(ref) * 1.001 + 1e-9
    for k in range(len(ref.positions)):
        data.qpos[:] = 0
        for name, value in ref.values_by_joint(k).items():
            data.qpos[model.joint(name).qposadr[0]] = value
        mujoco.mj_kinematics(model, data)
        for link, poses in ref.poses.items():
            body = model.body(link).id
            assert_pose(transform(data.xmat[body].reshape(3, 3), data.xpos[body]),
                        poses[k], what=link, who='MuJoCo (MJCF)')


@parametrize_cases()
def test_exact_masses_are_hebis_but_where_mujoco_refuses_them(case, folder, capfd):
    """HEBI's masses; only a body that carries a joint and has none gets the fill."""
    mujoco = pytest.importorskip('mujoco', reason='mujoco not installed (make test-consumers)')
    path, ref = written(case, folder, 'exact')
    model = load_scene(mujoco, path, capfd)
    hebi = link_inertials(ref.model, ref.tree, exact_masses=True)
    jointed = {model.body(model.jnt_bodyid[j]).name for j in range(model.njnt)}
    refused = [b for b in jointed if b not in hebi]
    assert float(model.body_subtreemass[0]) == pytest.approx(
        hebi_total(ref) + FILL_MASS * len(refused), rel=1e-12, abs=1e-12)


@pytest.mark.parametrize('variant,tolerance', [('', HOLD_TOLERANCE), ('gravcomp', 1e-6)])
@pytest.mark.parametrize('case', KIT_CASES, ids=[c.id for c in KIT_CASES])
def test_kits_hold_home_against_gravity(case, variant, tolerance, folder, capfd):
    """Pure PD within 0.05 rad; with HEBI's gravity compensation, exactly."""
    mujoco = pytest.importorskip('mujoco', reason='mujoco not installed (make test-consumers)')
    path, ref = written(case, folder, variant)
    model, data = at_home(mujoco, path, capfd)
    assert np.linalg.norm(model.opt.gravity) == pytest.approx(9.81)
    arm = [model.joint(name).qposadr[0] for name in ref.tree.dof_names]
    home = data.qpos[arm].copy()
    worst = 0.0
    for _ in range(round(HOLD_TIME / model.opt.timestep)):
        mujoco.mj_step(model, data)
        worst = max(worst, float(np.abs(data.qpos[arm] - home).max()))
    assert worst <= tolerance, worst


@pytest.mark.parametrize('case', G_CASES, ids=[c.id for c in G_CASES])
def test_g_kits_close_the_gripper(case, folder, capfd):
    mujoco = pytest.importorskip('mujoco', reason='mujoco not installed (make test-consumers)')
    path, ref = written(case, folder)
    model, data = at_home(mujoco, path, capfd)
    [gripper] = ref.tree.grippers
    actuator = model.actuator(gripper.joint).id
    lower, upper = model.actuator_ctrlrange[actuator]
    assert (lower, upper) == tuple(model.jnt_range[model.joint(gripper.joint).id])
    data.ctrl[actuator] = upper
    finger = model.joint(gripper.joint).qposadr[0]
    other = model.joint(gripper.joints['r_finger']).qposadr[0]
    closed_at, lag = None, 0.0
    for _ in range(round(CLOSE_TIME / model.opt.timestep)):
        mujoco.mj_step(model, data)
        lag = max(lag, abs(data.qpos[other] - data.qpos[finger]))
        if closed_at is None and data.qpos[finger] >= lower + CLOSED_FRACTION * (upper - lower):
            closed_at = data.time
    assert closed_at is not None and lag <= FOLLOW_TOLERANCE, (closed_at, lag)


@pytest.mark.parametrize('case', KIT_CASES, ids=[c.id for c in KIT_CASES])
def test_drakes_mjcf_parser(case, folder, caplog):
    pytest.importorskip('pydrake', reason='drake not installed (make test-consumers)')
    from pydrake.multibody.parsing import Parser
    from pydrake.multibody.plant import MultibodyPlant
    path, ref = written(case, folder)
    plant = MultibodyPlant(0.001)
    with caplog.at_level('WARNING', logger='drake'):
        Parser(plant).AddModels(os.path.join(path, 'robot.xml'))
    for record in caplog.records:
        message = record.getMessage()
        assert any(re.search(p, message) for p in DRAKE_IGNORES), message
    plant.Finalize()
    context = plant.CreateDefaultContext()
    assert plant.num_actuators() == len(ref.actuated_joints)
    # Drake reads a position actuator's ctrlrange as its effort limit, where it has one
    # (HEBI's continuous joints have none: there the forcerange)
    import mujoco
    model = mujoco.MjModel.from_xml_path(os.path.join(path, 'robot.xml'))
    for index in plant.GetJointActuatorIndices():
        actuator = plant.get_joint_actuator(index)
        k = model.actuator(actuator.name()).id
        limits = model.actuator_ctrlrange[k] if model.actuator_ctrllimited[k] else \
            model.actuator_forcerange[k]
        assert actuator.effort_limit() == np.abs(limits).max()
    for k in range(len(ref.positions)):
        q = np.zeros(plant.num_positions())
        for name, value in ref.values_by_joint(k).items():
            q[plant.GetJointByName(name).position_start()] = value
        plant.SetPositions(context, q)
        for link, poses in ref.poses.items():
            pose = plant.EvalBodyPoseInWorld(context, plant.GetBodyByName(link))
            assert_pose(pose.GetAsMatrix4(), poses[k], what=link, who="Drake's MJCF parser")


def test_cli_writes_both_files_and_fails_in_one_line(tmp_path, capsys):
    out = tmp_path / 'model' / 'robot.xml'
    assert main(['mjcf', KITS[0], '-o', str(out), '--collision-samples', '0']) == 0
    assert capsys.readouterr().out.split() == [str(out), str(out.parent / 'scene.xml')]
    assert '<include file="robot.xml"' in (out.parent / 'scene.xml').read_text()
    invalid = os.path.join(os.path.dirname(__file__), 'invalid', 'bad_float.hrdf')
    assert main(['mjcf', invalid, '-o', str(tmp_path / 'x' / 'robot.xml')]) == 1
    err = capsys.readouterr().err
    assert re.search(r'bad_float.hrdf:\d+:\d+: error: ', err) and 'Traceback' not in err
    assert not (tmp_path / 'x').exists()
    # an output that cannot be written: exit 2, one line
    assert main(['mjcf', KITS[0], '-o', '/proc/robot.xml', '--collision-samples', '0']) == 2
    err = capsys.readouterr().err
    assert err.strip().splitlines()[-1] == 'hrdf: error: /proc/robot.xml: No such file or ' \
        'directory' and err.count('hrdf: error') == 1 and 'Traceback' not in err
