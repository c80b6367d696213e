"""Write every output of ``hrdf urdf|sdf|mjcf|moveit`` for a list of HRDF files: the
worker of test_same_bytes.py, run in a subprocess per machine setting (BLAS kernel,
numpy's SIMD dispatch, working folder).

    python test/output_files.py ROBOTS.json OUT_DIR absolute|relative

ROBOTS.json is a list of absolute HRDF paths; each is given to the ``hrdf`` command as it
is, or relative to the working folder. Outputs go to
``OUT_DIR/<robot>/<command>-<meshes>/``, with the default mesh source (HEBI's meshes
where found) for the first file, ``--meshes primitives`` for the second, and so on in turn
(both sources on every robot would double the work, and the mesh source changes only
the geometry elements). Prints one JSON line: the commands that did not exit 0.
"""
import contextlib
import io
import json
import os
import sys

#: (command, the file ``-o`` names below its folder)
COMMANDS = (('urdf', 'robot.urdf'), ('sdf', 'model.sdf'), ('mjcf', 'robot.xml'),
            ('moveit', 'robot_moveit_config'))
#: ``--meshes`` values: the default (HEBI's meshes where found) and primitives.
MESHES = ('auto', 'primitives')
#: Random states of the self-collision matrix (``--collision-samples``) of the commands
#: that compute one: 1000, not the default 10 000, whose only difference is the number of
#: states drawn (the same arithmetic, a tenth of the time: 70 s of CI).
SAMPLES = {'mjcf': ['--collision-samples', '1000'], 'moveit': ['--collision-samples', '1000']}


#: HEBI's files (kits/, real/) beside the repository.
SHARED_HRDF = os.path.realpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), '..',
                                            '..', 'shared', 'hrdf'))


def output_name(path: str) -> str:
    """The folder name of one robot's outputs: its path below ../shared/hrdf (two real
    files may share a file name), or its file name for a file elsewhere."""
    path = os.path.realpath(path)
    if path.startswith(SHARED_HRDF + os.sep):
        return os.path.relpath(path, SHARED_HRDF).replace(os.sep, '_')
    return os.path.basename(path)


def write_all(paths, out_dir: str, relative: bool):
    """Run every command on every path; returns the argv of those that did not exit 0."""
    from hrdf_ros.cli.main import main  # noqa: PLC0415 - after the environment is set
    failed = []
    for k, path in enumerate(paths):
        given = os.path.relpath(path) if relative else path
        meshes = MESHES[k % len(MESHES)]
        for command, target in COMMANDS:
            folder = os.path.join(out_dir, output_name(path), f'{command}-{meshes}')
            os.makedirs(folder, exist_ok=True)
            argv = [command, given, '-o', os.path.join(folder, target),
                    '--meshes', meshes, *SAMPLES.get(command, [])]
            with contextlib.redirect_stdout(io.StringIO()), \
                    contextlib.redirect_stderr(io.StringIO()):
                code = main(argv)
            if code:
                failed.append(argv)
    return failed


if __name__ == '__main__':
    with open(sys.argv[1], encoding='utf-8') as handle:
        robots = json.load(handle)
    print(json.dumps(write_all(robots, sys.argv[2], sys.argv[3] == 'relative')))
