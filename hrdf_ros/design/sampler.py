"""The search's Optuna study, in a process of its own whose numpy computes as on any x86-64.

In: a :class:`~.task.Task`, a seed, then commands: enqueue a trial's parameters, ask a
batch, tell the objective values. Out: the designs asked (:func:`.search.design_of_trial`
run in that process), in the order asked.

Why a process: numpy picks its loops by the CPU it runs on (``exp``, ``log`` and others
from AVX-512 code on a CPU that has it), and those differ from the baseline loops in the
last bit. TPE's kernel densities are made of such functions, and its choices follow
their last bits: on an AVX-512 machine the design tutorial's search left the path it
takes on other machines at its 26th design (the 25 evaluations before it the same bits)
and ended at 2.391 kg instead of 2.389. The study's process is started with
``NPY_DISABLE_CPU_FEATURES`` naming every dispatched feature this CPU has (numpy reads
it once, at import), OpenBLAS on its Prescott kernel on x86-64 (no fused multiply-add)
and one BLAS thread, so the sampler's arithmetic is the baseline's on every machine and
the same seed and budget give the same designs everywhere.

The process is ``python -m hrdf_ros.design.sampler``, not :mod:`multiprocessing`: a
caller's script is never imported again there. Commands and answers are pickles on its
standard input and a copy of its standard output (the pipe is this process's own; the
child's ``sys.stdout`` goes to standard error). It ends when its input closes.
"""
from __future__ import annotations

import os
import pickle
import platform
import subprocess
import sys
import tempfile
from typing import Dict, List, Tuple

from .space import Design
from .task import Task


def baseline_environment() -> Dict[str, str]:
    """The environment variables that put numpy and OpenBLAS on their baseline code
    (module docstring), for this CPU."""
    try:
        from numpy._core import _multiarray_umath as cpu                # noqa: PLC0415
    except ImportError:
        from numpy.core import _multiarray_umath as cpu                 # noqa: PLC0415
    # those this process has on, and those its own environment switched off already
    # (numpy reports them off)
    off = os.environ.get('NPY_DISABLE_CPU_FEATURES', '').replace(',', ' ').split()
    dispatched = [f for f in cpu.__cpu_dispatch__ if cpu.__cpu_features__.get(f)]
    off += [f for f in dispatched if f not in off]
    env = {'NPY_DISABLE_CPU_FEATURES': ' '.join(off), 'OPENBLAS_NUM_THREADS': '1',
           'OMP_NUM_THREADS': '1'}
    if platform.machine().lower() in ('x86_64', 'amd64'):
        env['OPENBLAS_CORETYPE'] = 'Prescott'
    return env


class Sampler:
    """Optuna's TPE study of a search (:mod:`.search`), in its own process.

    Raises:
        ImportError: Optuna missing (the design extra).
        RuntimeError: the process ended (its exit code and last words).
    """

    def __init__(self, task: Task, seed: int):
        import importlib.util                                           # noqa: PLC0415
        try:
            found = importlib.util.find_spec('optuna') is not None
        except (ImportError, ValueError):
            found = False
        if not found:
            raise ImportError('hrdf design needs the design extra: pip install '
                              '"hrdf_ros[design]" (Optuna, Dask)')
        env = dict(os.environ, **baseline_environment())
        self._errors = tempfile.TemporaryFile()   # a file: a full pipe would block it
        self._process = subprocess.Popen(
            [sys.executable, '-m', 'hrdf_ros.design.sampler'], stdin=subprocess.PIPE,
            stdout=subprocess.PIPE, stderr=self._errors, env=env)
        self._call('start', task, seed)

    def _call(self, *command):
        try:
            pickle.dump(command, self._process.stdin, protocol=4)
            self._process.stdin.flush()
            ok, value = pickle.load(self._process.stdout)
        except (EOFError, OSError, pickle.UnpicklingError):
            self._process.kill()
            self._process.wait()
            self._errors.seek(0)
            error = self._errors.read().decode(errors='replace').strip()
            raise RuntimeError(f'the design sampler process ended (exit code '
                               f'{self._process.returncode}): {error[-2000:]}') from None
        if not ok:
            raise value
        return value

    def enqueue(self, params: Dict[str, object], skip_if_exists: bool = False) -> None:
        """A trial with these parameters is asked before the sampler's own (Optuna's
        ``enqueue_trial``; ``skip_if_exists``: not if one with them was enqueued)."""
        self._call('enqueue', params, skip_if_exists)

    def ask(self, count: int) -> List[Tuple[int, Design]]:
        """``count`` trials: (trial number, its design), in the order asked."""
        return self._call('ask', count)

    def tell(self, told: List[Tuple[int, float]]) -> None:
        """Each trial's objective value, in the order given."""
        self._call('tell', told)

    def close(self) -> None:
        """End the process."""
        if self._process.poll() is None:
            self._process.stdin.close()
            try:
                self._process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self._process.kill()
                self._process.wait()
        self._process.stdout.close()
        self._errors.close()

    def __enter__(self) -> 'Sampler':
        return self

    def __exit__(self, *exc) -> None:
        self.close()


class _Study:
    """The child's side: the study and the task."""

    def __init__(self, task: Task, seed: int):
        import warnings                                                 # noqa: PLC0415
        import optuna                                                   # noqa: PLC0415
        from .search import BATCH                                       # noqa: PLC0415
        optuna.logging.set_verbosity(optuna.logging.WARNING)
        with warnings.catch_warnings():       # multivariate TPE is "experimental"
            warnings.simplefilter('ignore', optuna.exceptions.ExperimentalWarning)
            sampler = optuna.samplers.TPESampler(seed=seed, multivariate=True,
                                                 constant_liar=True, n_startup_trials=BATCH)
        self.study = optuna.create_study(sampler=sampler, direction='minimize')
        self.task = task
        self.asked = {}

    def enqueue(self, params, skip_if_exists):
        self.study.enqueue_trial(params, skip_if_exists=skip_if_exists)

    def ask(self, count):
        from .search import design_of_trial                             # noqa: PLC0415
        out = []
        for _ in range(count):
            trial = self.study.ask()
            self.asked[trial.number] = trial
            out.append((trial.number, design_of_trial(trial, self.task)))
        return out

    def tell(self, told):
        for number, value in told:
            self.study.tell(self.asked.pop(number), value)


def serve() -> None:
    """The child's loop: one answer ``(ok, value)`` per command, until the input ends."""
    answers = os.fdopen(os.dup(1), 'wb')
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    commands = sys.stdin.buffer
    study = None
    while True:
        try:
            verb, *args = pickle.load(commands)
        except EOFError:
            return
        try:
            if verb == 'start':
                study, value = _Study(*args), None
            else:
                value = getattr(study, verb)(*args)
            answer = (True, value)
        except Exception as error:                    # handed back, raised by the caller
            answer = (False, error)
        pickle.dump(answer, answers, protocol=4)
        answers.flush()


if __name__ == '__main__':
    serve()
