"""Run hebi-py (HEBI's own library, the test oracle) on HRDF files, each in its own process.

hebi-py 2.16.1 crashes (SIGSEGV) on include cycles and hangs on formulas with a lone
``.``, so the differential tests never import a file in the test process. :func:`run_all`
starts this script once as a server: it imports hebi-py once, then forks one child
process per file and kills it after a timeout, so a crash or a hang costs one file, not
the run, and the import is paid once.

Per file the result is a dict: ``ok`` (the import succeeded), ``error`` (hebi-py's
message, ``timeout`` or ``crash ...``), ``warnings``, ``dof``, ``frames`` (count per
hebi-py frame type) and ``masses``; when ``ok``, ``arrays`` holds ``q`` (20, dof)
uniform in [-pi, pi) from ``numpy.random.default_rng(seed)``, and per frame type T in
input, output, com, EndEffector: ``fk_T`` (20, n, 4, 4) and, but for input, ``jac_T``
(20, n, 6, dof); and ``get_grav_comp_efforts`` (20, dof) under each of :data:`GRAVITY`.
"""
import json
import os
import signal
import subprocess
import sys
import time

import numpy as np

CONFIGURATIONS = 20
FRAME_TYPES = ('input', 'output', 'com', 'EndEffector')
#: hebi-py's gravity compensation efforts at each configuration, under these gravity
#: vectors (m/s^2): HEBI's arm API's 9.81 along -z, and a tilted one.
GRAVITY = {'gravity': (0.0, 0.0, -9.81), 'gravity_tilted': (1.2, -3.4, -8.7)}


def _evaluate(path: str, seed: int, out: str) -> dict:
    """hebi-py's result for one file (in the child process); arrays go to ``out``."""
    import hebi
    warnings = []
    try:
        robot = hebi.robot_model.import_from_hrdf(path, warning_callback=warnings.extend)
    except Exception as exc:  # noqa: BLE001 - any refusal is a result
        return {'ok': False, 'warnings': warnings, 'error': f'{type(exc).__name__}: {exc}'}
    dof = int(robot.dof_count)
    counts = {t: int(robot.get_frame_count(t)) for t in FRAME_TYPES}
    q = np.random.default_rng(seed).uniform(-np.pi, np.pi, (CONFIGURATIONS, dof))
    arrays = {'q': q}
    for t in FRAME_TYPES:
        n = counts[t]
        arrays[f'fk_{t}'] = np.stack([np.asarray(robot.get_forward_kinematics_mat(t, x))
                                      .reshape(n, 4, 4) for x in q])
        if t != 'input':
            arrays[f'jac_{t}'] = np.stack([np.asarray(robot.get_jacobians_mat(t, x))
                                           .reshape(n, 6, dof) for x in q])
    for name, gravity in GRAVITY.items():
        arrays[name] = np.stack([robot.get_grav_comp_efforts(x, np.array(gravity))
                                 for x in q]).reshape(len(q), dof)
    np.savez(out, **arrays)
    return {'ok': True, 'warnings': warnings, 'dof': dof, 'frames': counts,
            'masses': [float(m) for m in robot.masses], 'npz': out}


def _in_child(path: str, seed: int, out: str, timeout: float) -> dict:
    """Fork; the child evaluates and writes its result as JSON next to ``out``."""
    report = out + '.json'
    pid = os.fork()
    if pid == 0:  # child: never returns
        code = 1
        try:
            with open(report, 'w', encoding='utf-8') as handle:
                json.dump(_evaluate(path, seed, out), handle)
            code = 0
        finally:
            os._exit(code)
    deadline = time.monotonic() + timeout
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            break
        if time.monotonic() > deadline:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            return {'ok': False, 'error': 'timeout'}
        time.sleep(0.002)
    if os.WIFSIGNALED(status) or os.WEXITSTATUS(status) != 0:
        return {'ok': False, 'error': f'crash (wait status {status})'}
    with open(report, encoding='utf-8') as handle:
        return json.load(handle)


def _serve() -> None:
    """Read ``path<TAB>seed<TAB>out<TAB>timeout`` lines; print one JSON result line per
    job."""
    import hebi  # noqa: F401 - imported once, before forking
    for line in sys.stdin:
        path, seed, out, timeout = line.rstrip('\n').split('\t')
        print(json.dumps(_in_child(path, int(seed), out, float(timeout))), flush=True)


def run_all(jobs, timeout: float = 30.0) -> list:
    """hebi-py's result (module docstring) for each ``(path, seed, out.npz)`` job, in
    order; a file that crashes or hangs (no result within ``timeout`` s, or the job's own
    fourth item) gives ``ok`` False with ``crash``/``timeout``."""
    jobs = [tuple(job) + (timeout,) * (4 - len(job)) for job in jobs]
    server = subprocess.run(
        [sys.executable, os.path.abspath(__file__), '--serve'],
        input=''.join(f'{p}\t{s}\t{o}\t{t}\n' for p, s, o, t in jobs), capture_output=True,
        text=True, timeout=60 + sum(t for *_, t in jobs))
    lines = [line for line in server.stdout.splitlines() if line.startswith('{')]
    assert len(lines) == len(jobs), f'hebi oracle failed: {server.stderr[-2000:]}'
    results = []
    for line in lines:
        result = json.loads(line)
        if result['ok']:
            with np.load(result.pop('npz')) as data:
                result['arrays'] = {k: data[k] for k in data.files}
        results.append(result)
    return results


if __name__ == '__main__':
    _serve()
