"""Shared by the consumer tests (test_consumers_*.py, marker ``consumers``): the robots
they run on, hebi-py's reference frames, and small adapters for the programs that read
the URDF/SDF (Drake, MuJoCo, PyBullet, Pinocchio, KDL, urdfdom, SDFormat).

Robots: the 26 kits, both hexapods, the bundled arm, a geared tree with HRDF joints
(prismatic, negative gear ratios, a base frame, two end effectors) and every file of
../shared/hrdf/real/ that hrdf_ros and hebi-py load and whose robot no kit or earlier
file already is (distinct_robots.py; the others are listed by
test_consumers_urdf.py::test_real_files_that_do_not_load_are_listed). Missing data
folders just give fewer robots.

Reference: hebi-py (``hebi.robot_model.import_from_hrdf``): the input frame of every
element (its URDF link) and every end-effector frame (the ``end_effector`` links) at
random joint positions. URDF joint values are HEBI positions divided by the gear ratio.
A parallel gripper's links (the G kits) are at hebi-py's gripper input frame times
hrdf_ros.kinematics.gripper's part poses (checked against HEBI's own URDF of the kits in
test_gripper.py) for a random gripper position; its mimic joints take
multiplier * position + offset, as robot_state_publisher computes them.
"""
import glob
import os
import shutil
import subprocess
from dataclasses import dataclass
from typing import Optional

import numpy as np
import pytest

from hrdf_ros import HrdfError, load, loads
from hrdf_ros.description.frame_tree import build_frame_tree
from hrdf_ros.kinematics import gripper as mechanism

from distinct_robots import distinct
from conftest import (BUNDLED_ARM, hebi_frames, HEXAPOD, HEXAPOD_18, kit_id, KITS, REPO,
                      WRITTEN_ATOL, WRITTEN_RTOL)

REAL_DIR = os.path.join(REPO, '..', 'shared', 'hrdf', 'real')
GEARED_TREE = ('<robot version="1.5.0" rot="Rx(0.3)*Rz(-0.2)" trans="0.1 -0.2 0.3">'
               '<rigid-body mass="1.5" com_trans="0.01 0.02 0.03" com_rot="Ry(0.4)">'
               '<output trans="0.2 0 0"><actuator type="X5-1" tag="yaw"/><joint axis="ty"/>'
               '<link type="X5" extension="0.3" twist="0.5"/><end-effector/></output>'
               '<output rot="Rz(1)"><joint axis="rx" gear_ratio="2.5" tag="roll"/>'
               '<actuator type="X8-9"/><joint axis="tz" gear_ratio="-3"/>'
               '<end-effector tag="tool"/></output></rigid-body></robot>')
#: Random configurations per robot and consumer.
CONFIGURATIONS = 5
#: Pose tolerance against hebi-py (m, and rotation matrix entries).
TOL = 1e-9


@dataclass(frozen=True)
class Case:
    """One robot: an HRDF file, or HRDF text (``path`` None); with ``config``, named and
    limited by that HEBI arm config (:mod:`hrdf_ros.description.hebi_arm`)."""

    id: str
    path: Optional[str] = None
    text: Optional[str] = None
    config: Optional[str] = None

    def model(self):
        return load(self.path) if self.path else loads(self.text)

    def hebi(self):
        from hebi.robot_model import import_from_hrdf, import_from_hrdf_string
        quiet = {'warning_callback': lambda warnings: None}
        return (import_from_hrdf(self.path, **quiet) if self.path
                else import_from_hrdf_string(self.text, **quiet))


def check_total_mass(total, ref):
    """Total mass within 0.1 % of hebi-py's (the fill only adds; each mass as written,
    to 12 digits)."""
    hebi_total = float(ref.masses.sum())
    assert hebi_total * (1 - WRITTEN_RTOL) <= total
    assert total <= hebi_total * 1.001 + 1e-9, (total, hebi_total)


def real_files():
    """Every HRDF under ../shared/hrdf/real (flat/ and trees/), sorted."""
    return sorted(glob.glob(os.path.join(REAL_DIR, 'flat', '*.hrdf'))) + sorted(
        glob.glob(os.path.join(REAL_DIR, 'trees', '**', '*.hrdf'), recursive=True))


def real_id(path):
    relative = os.path.relpath(path, REAL_DIR)
    if relative.startswith('flat'):
        return 'real-' + kit_id(path).split('__')[-1]
    parts = relative.split(os.sep)
    return 'tree-' + parts[1].split('_')[-1].split('@')[0] + '-' + kit_id(path)


def _loads(path):
    """True when both hrdf_ros and hebi-py (the reference) load the file."""
    try:
        load(path)
        Case('', path).hebi()
        return True
    except (HrdfError, RuntimeError):
        return False


REAL_FILES = real_files()
REAL_LOADED = [p for p in REAL_FILES if _loads(p)]
REAL_NOT_LOADED = [p for p in REAL_FILES if p not in REAL_LOADED]
#: The loaded real files whose robot no kit and no earlier file is (distinct_robots.py).
REAL_DISTINCT = [p for p in distinct(KITS + [BUNDLED_ARM, HEXAPOD, HEXAPOD_18] + REAL_LOADED)
                 if p in REAL_LOADED]
#: HEBI arm configs whose names and limits the URDF takes: HEBI's gripper joint (a name
#: with a slash), a sanitised name (A-2099-07's stray quote), gains-bounded limits.
ARM_CONFIGS = [os.path.join(REPO, '..', 'shared', 'hebi_description', 'config', 'arms',
                            f'{kit}.cfg.yaml') for kit in ('A-2085-06G', 'A-2099-07')]


def _config_case(config):
    from hrdf_ros.hrdf.arm_config import read_arm_config
    return Case('config-' + os.path.basename(config)[:-len('.cfg.yaml')],
                read_arm_config(config).hrdf, config=config)


CASES = ([Case(kit_id(p), p) for p in KITS + [BUNDLED_ARM, HEXAPOD, HEXAPOD_18]]
         + [Case('geared_tree', text=GEARED_TREE)]
         + [Case(real_id(p), p) for p in REAL_DISTINCT]
         + [_config_case(c) for c in ARM_CONFIGS if os.path.isfile(c)])
assert len({c.id for c in CASES}) == len(CASES), 'case ids must be unique'


def parametrize_cases():
    return pytest.mark.parametrize('case', CASES, ids=[c.id for c in CASES])


@dataclass
class Reference:
    """hebi-py's frames of a robot at random positions.

    Attributes:
        model, tree: hrdf_ros's model and frame tree.
        positions: (N, dof) HEBI joint positions.
        urdf_values: (N, dof) URDF joint values (positions / gear ratio).
        poses: {link: (N, 4, 4)} element input frames, end-effector frames and the
            links of parallel grippers.
        masses: (n_com,) hebi-py's masses, kg.
        gripper_values: (N, grippers) finger joint positions, rad.
        limits: {joint: JointLimit} the URDF is written with (a HEBI config's bounds).
    """

    model: object
    tree: object
    positions: np.ndarray
    urdf_values: np.ndarray
    poses: dict
    masses: np.ndarray
    hebi: object
    gripper_values: np.ndarray = None
    limits: dict = None

    def values_by_joint(self, k, gripper=None, mimic=True):
        """{URDF joint name: value} of configuration k: the HRDF's joints, each gripper's
        finger joint (at ``gripper`` when given) and, with ``mimic``, its mimic joints."""
        values = dict(zip(self.tree.dof_names, self.urdf_values[k]))
        for i, tree in enumerate(self.tree.grippers):
            value = self.gripper_values[k, i] if gripper is None else gripper
            values[tree.joint] = value
            if mimic:
                values.update(mimic_values(tree, value))
        return values

    @property
    def moving_joints(self):
        """Every moving URDF joint: the HRDF's, then each gripper's finger and mimic
        joints."""
        return self.tree.dof_names + [j for g in self.tree.grippers for j in g.moving_joints]

    @property
    def actuated_joints(self):
        """Joints with a transmission: the HRDF's and each gripper's finger joint."""
        return self.tree.dof_names + self.tree.gripper_joint_names


    def hebi_gravity_torques(self, k, gravity):
        """hebi-py's gravity compensation efforts at configuration k as URDF joint
        torques (N m, or N): times the gear ratio (the same power), and with the sign of
        negative-axis joints corrected: hebi-py 2.16.1 computes them with its Jacobian,
        whose columns for ``axis="-rz"`` and the like have the wrong sign (pinned in
        test_real_files.py)."""
        elements = [self.model.elements[e] for e in self.model.dof_elements]
        scale = np.array([e.gear_ratio * e.axis_sign for e in elements])
        return self.hebi.get_grav_comp_efforts(self.positions[k], gravity) * scale


def mimic_values(gripper, value):
    """{mimic joint: multiplier * value + offset} of one gripper (robot_state_publisher's
    rule)."""
    return {spec.name: spec.mimic[1] * value + spec.mimic[2]
            for spec in gripper.joint_specs() if spec.mimic is not None}

def reference(case: Case, seed: int = 7) -> Reference:
    model = case.model()
    tree, limits = build_frame_tree(model), {}
    if case.config:
        from hrdf_ros.description.hebi_arm import hebi_arm
        from hrdf_ros.hrdf.arm_config import read_arm_config
        arm = hebi_arm(model, read_arm_config(case.config))
        tree, limits = arm.frame_tree(model), arm.limits_under()[0]
    hebi = case.hebi()
    rng = np.random.default_rng(seed)
    low = np.array([-0.5 if model.elements[e].motion[0] == 't' else -np.pi
                    for e in model.dof_elements])
    q = rng.uniform(low, -low, (CONFIGURATIONS, model.dof_count))
    ratios = np.array([model.elements[e].gear_ratio for e in model.dof_elements])
    inputs = hebi_frames(hebi, 'input', q)
    poses = {link: inputs[:, i] for i, link in enumerate(tree.element_links)}
    if tree.end_effector_links:
        tips = hebi_frames(hebi, 'end_effector', q)
        poses.update({link: tips[:, i] for i, link in enumerate(tree.end_effector_links)})
    grippers = rng.uniform(mechanism.GRIPPER_LOWER, mechanism.GRIPPER_UPPER,
                           (CONFIGURATIONS, len(tree.grippers)))
    for i, gripper in enumerate(tree.grippers):
        parts = mechanism.part_poses(grippers[:, i])
        for k, part in enumerate(mechanism.PART_NAMES):
            poses[gripper.links[part]] = inputs[:, gripper.element] @ parts[:, k]
    return Reference(model, tree, q, q / ratios, poses, np.asarray(hebi.masses, float), hebi,
                     grippers, limits)


#: Largest pose error per consumer seen in this session (printed at the end of the run).
WORST = {}


def assert_pose(actual, expected, tol=TOL, what='', who=None):
    """Translation (m) and rotation entries within ``tol``; the error is recorded under
    ``who`` for the session summary."""
    if who is not None:
        WORST[who] = max(WORST.get(who, 0.0), pose_error(actual, expected))
    np.testing.assert_allclose(np.asarray(actual)[:3, :4], np.asarray(expected)[:3, :4],
                               atol=tol, rtol=0, err_msg=what)


def pose_error(actual, expected) -> float:
    return float(np.abs(np.asarray(actual)[:3, :4] - np.asarray(expected)[:3, :4]).max())


def require_tool(name):
    """Skip (a consumers-marker skip makes .ci/run fail) when a program is missing."""
    if shutil.which(name) is None:
        pytest.skip(f'{name} not installed (make test-consumers installs it)')


def ign_sdf(*args, timeout=60):
    """``ign sdf ARGS`` -> CompletedProcess, stderr without ign's backtrace notice."""
    require_tool('ign')
    result = subprocess.run(['ign', 'sdf', *args], capture_output=True, text=True,
                            timeout=timeout)
    result.stderr = '\n'.join(line for line in result.stderr.splitlines()
                              if 'backward' not in line)
    return result


def quaternion_xyzw_matrix(q):
    x, y, z, w = q
    return np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
                     [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
                     [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)]])


def transform(rotation, translation):
    out = np.eye(4)
    out[:3, :3] = rotation
    out[:3, 3] = translation
    return out


#: HEBI's part meshes for the consumer tests: the shared copy of hebi_description.
HEBI_MESHES = os.path.join(REPO, '..', 'shared', 'hebi_description', 'meshes')
#: A valid mesh (a tetrahedron, 0.1 m) standing in for downloaded web meshes.
TETRAHEDRON_OBJ = ('v 0 0 0\nv 0.1 0 0\nv 0 0.1 0\nv 0 0 0.1\n'
                   'f 1 3 2\nf 1 2 4\nf 1 4 3\nf 2 3 4\n')


def mesh_folder(model, folder, web=True):
    """A ``mesh_dir`` for one export: links to HEBI's mesh files (the shared copy of
    hebi_description, so every HEBI part is drawn with its mesh; none when that copy is
    absent) and, with ``web``, a stand-in copy of each web mesh at ``<host>/<path>``,
    where ``hrdf urdf --mesh-dir`` downloads them (the downloads themselves:
    test_mesh_fetch.py). Returns the folder."""
    from hrdf_ros.parts.hebi_mesh_files import FILES
    from hrdf_ros.parts.mesh_fetch import web_meshes
    from hrdf_ros.parts.mesh_sources import local_name
    folder = str(folder)
    os.makedirs(folder, exist_ok=True)
    if os.path.isdir(HEBI_MESHES):
        for name in FILES:
            os.symlink(os.path.join(HEBI_MESHES, name), os.path.join(folder, name))
    for url in web_meshes(model) if web else []:
        path = os.path.join(folder, local_name(url))
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, 'w') as handle:
            handle.write(TETRAHEDRON_OBJ)
    return folder


def visual_meshes(model):
    """How many ``<visual>`` meshes the URDF of ``model`` has with :func:`mesh_folder`:
    one per HEBI mesh piece (when the shared copy is there) and per HRDF mesh (a web URL
    or a copy, or a local file that exists)."""
    from hrdf_ros.parts.hebi_parts import part_pieces
    hebi = os.path.isdir(HEBI_MESHES) and sum(
        p.mesh is not None for e in model.elements for p in part_pieces(e))
    own = sum(1 for e in model.elements if e.mesh_file and (
        e.mesh_file.startswith(('http://', 'https://')) or os.path.isfile(e.mesh_file)))
    return int(hebi) + own


def write_urdf(ref, folder, web_meshes=True, **options):
    """Write the URDF of ``ref.model`` into ``folder``, HEBI's parts drawn with HEBI's
    meshes and, with ``web_meshes``, web meshes as (stand-in) local copies
    (:func:`mesh_folder`); checks that every one is a mesh in the URDF. Returns the file
    path."""
    from hrdf_ros import to_urdf
    folder = str(folder)
    options.setdefault('mesh_dir', mesh_folder(ref.model, os.path.join(folder, 'meshes'),
                                               web_meshes))
    options.setdefault('position_limits', ref.limits)
    path = os.path.join(folder, 'robot.urdf')
    text = to_urdf(ref.model, 'robot', tree=ref.tree, **options)
    with open(path, 'w', encoding='utf-8') as handle:
        handle.write(text)
    assert count_visual_meshes(text) == visual_meshes(ref.model)
    return path


def count_visual_meshes(text):
    """``<visual>`` elements with a ``<mesh>`` in a URDF or SDF document."""
    import xml.etree.ElementTree as ET
    return sum(1 for visual in ET.fromstring(text).iter('visual')
               if visual.find('geometry/mesh') is not None)
