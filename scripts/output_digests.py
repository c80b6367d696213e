"""SHA-256 of every file that ``hrdf urdf``, ``hrdf sdf``, ``hrdf mjcf`` and ``hrdf moveit``
write, with default options, for each HRDF file hebi-py loads among ../shared/hrdf/kits,
../shared/hrdf/real and the bundled arm.

Run it at two commits and compare the JSON files: a refactoring that must not change any
output shows no difference. Outputs go to fixed folders under ``--work`` (so file://
paths inside them are the same at both commits); ``SOURCE_DATE_EPOCH`` fixes the MoveIt
package's ``generated_timestamp``.

    python scripts/output_digests.py before.json
    (change things)
    python scripts/output_digests.py after.json
    python scripts/output_digests.py --compare before.json after.json
"""
import argparse
import contextlib
import glob
import hashlib
import io
import json
import os
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SHARED = os.path.join(ROOT, '..', 'shared', 'hrdf')
COMMANDS = {'urdf': ['urdf', '{hrdf}', '-o', '{out}/robot.urdf'],
            'sdf': ['sdf', '{hrdf}', '-o', '{out}/model.sdf'],
            'mjcf': ['mjcf', '{hrdf}', '-o', '{out}/robot.xml'],
            'moveit': ['moveit', '{hrdf}', '-o', '{out}/robot_moveit_config']}


def hrdf_files():
    """The HRDF files hebi-py loads (kits, real files, the bundled arm), sorted."""
    sys.path.insert(0, os.path.join(ROOT, 'test'))
    from hebi_oracle import run_all  # noqa: PLC0415 - the test's own hebi-py runner
    paths = sorted(glob.glob(os.path.join(SHARED, 'kits', '*.hrdf'))
                   + glob.glob(os.path.join(SHARED, 'real', '**', '*.hrdf'), recursive=True))
    paths.append(os.path.join(ROOT, 'config', 'x_series_arm_6dof.hrdf'))
    with tempfile.TemporaryDirectory() as scratch:
        results = run_all([(path, 0, os.path.join(scratch, f'{n}.npz'))
                           for n, path in enumerate(paths)])
    return [path for path, result in zip(paths, results) if result['ok']]


def digests(work: str) -> dict:
    from hrdf_ros.cli.main import main  # noqa: PLC0415
    os.environ['SOURCE_DATE_EPOCH'] = '1700000000'
    table = {}
    for path in hrdf_files():
        name = os.path.relpath(path, os.path.join(ROOT, '..'))
        for command, template in COMMANDS.items():
            out = os.path.join(work, name.replace('/', '_'), command)
            os.makedirs(out, exist_ok=True)
            argv = [a.format(hrdf=path, out=out) for a in template]
            with contextlib.redirect_stdout(io.StringIO()), \
                    contextlib.redirect_stderr(io.StringIO()):
                code = main(argv)
            files = {}
            for folder, _, names in os.walk(out):
                for file_name in names:
                    full = os.path.join(folder, file_name)
                    with open(full, 'rb') as handle:
                        files[os.path.relpath(full, out)] = \
                            hashlib.sha256(handle.read()).hexdigest()
            table[f'{name} {command}'] = {'exit': code, 'files': files}
        print(name, flush=True)
    return table


def compare(before: str, after: str) -> int:
    with open(before, encoding='utf-8') as a, open(after, encoding='utf-8') as b:
        old, new = json.load(a), json.load(b)
    differ = [key for key in sorted(set(old) | set(new)) if old.get(key) != new.get(key)]
    files = sum(len(v['files']) for v in old.values())
    for key in differ:
        print('differs:', key)
    per_command = {}
    for key in old:
        command = key.rsplit(' ', 1)[1]
        per_command[command] = per_command.get(command, 0) + len(old[key]['files'])
    print(f'{len(old)} outputs of {len({k.rsplit(" ", 1)[0] for k in old})} HRDF files, '
          f'{files} files ({per_command}); {len(differ)} differ')
    return 1 if differ else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('output', nargs='?', help='JSON file to write')
    parser.add_argument('--work', default='/tmp/hrdf_output_digests')
    parser.add_argument('--compare', nargs=2, metavar=('BEFORE', 'AFTER'))
    parser.add_argument('--package-root', help='import hrdf_ros from this checkout (e.g. a '
                        'git worktree of the commit before), not the installed one')
    args = parser.parse_args()
    if args.package_root:   # an editable install's finder would win over sys.path
        sys.meta_path[:] = [f for f in sys.meta_path if 'editable' not in repr(f).lower()]
        sys.path.insert(0, os.path.abspath(args.package_root))
    if args.compare:
        return compare(*args.compare)
    table = digests(args.work)
    with open(args.output, 'w', encoding='utf-8') as handle:
        json.dump(table, handle, indent=1, sort_keys=True)
    return 0


if __name__ == '__main__':
    sys.exit(main())
