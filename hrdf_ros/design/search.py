"""The search of ``hrdf design``: Optuna's TPE sampler over the design space.

In: a :class:`~.task.Task`, a seed, an evaluation budget and where to evaluate (this
process, a process pool, a Dask cluster: :mod:`.engines`). Out: a :class:`DesignResult`:
every design evaluated, in the order evaluated, and the best ones.

The space, as Optuna parameters, the same for every trial: every slot up to the task's
largest DoF is suggested, used or not, so the multivariate TPE models the parameters
together across DoF and families (a define-by-run space would split the trials by DoF
and family and learn each part from few of them; measured on a 5-DoF task made from an
X5 arm, 400 evaluations: 2.77 kg against 2.97 kg):

* ``family``: one of the task's families; ``dof``: in the task's range;
* ``size<k>``: ``small`` or ``large``, the actuator's size (X5 or X8; T5 or T8; R8 for
  both); the evaluation picks the actuator of that size (:mod:`.evaluate`'s sizing);
* ``connector<k>``: ``bracket`` or ``link`` (even odds at first: most arms that reach
  need links, and six bracket styles against one link would bury them);
  ``bracket<k>``: its style (``LightRight``, ``HeavyLeftInside``, ...; the family's
  series prefixed); ``extension<k>`` (m, on a :data:`EXTENSION_STEP` grid in
  [0.05, 1.0]) and ``twist<k>`` (``0``, ``pi/2``, ``pi``, ``-pi/2``) of a link;
* the end effector is the task's: none, or the family's parallel gripper;
* when the task lets the base move (:class:`~.task.BaseRange`): ``base_x``, ``base_y``,
  ``base_z`` and ``base_yaw``, indices into :func:`base_grids`; HEBI's kits stand at
  :func:`base_seed`.

The sampler (``optuna.samplers.TPESampler``, multivariate, seeded) minimises the
lexicographic rank (:meth:`~.evaluate.Evaluation.rank_key`) folded into one number,
``1000 x missed targets + 10 x min(effort excess, 99) + mass`` (no arm of the space
weighs 10 kg). HEBI's kits that fit the task's families and DoF (:mod:`.kits`) are
evaluated first as sold (the summary compares the best design with the lightest that
meets the task), then their geometries are the first trials (enqueued, and sized as
every trial is), so a stock kit that does the job is always found, and the search looks
for lighter.

Determinism: trials are asked in fixed batches (:data:`BATCH`), evaluated anywhere, told
in the order asked. The sampler's state depends only on the seed and what it was told,
so the same seed and budget give the same designs for any number of workers and on a
cluster. The study lives in a process of its own whose numpy runs its baseline loops
(:mod:`.sampler`), so they are the same on every machine too. The search never looks at
a clock.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable, Dict, List, Optional, Tuple

from . import DEFAULT_EVALUATIONS
from .evaluate import Evaluation
from .kits import kit_designs
from .sampler import Sampler
from .space import (FAMILIES, MAX_EXTENSION, MIN_EXTENSION, TWIST_TEXT, Connector, Design,
                    size_of, strongest)
from .task import BaseRange, Task

#: Trials asked, evaluated and told together.
BATCH = 16
#: Of each batch after the first, at most this many are the incumbent's geometry with
#: smaller actuators (:func:`smaller`).
SMALLER_PER_BATCH = 4
#: The links' extension grid, m.
EXTENSION_STEP = 0.005
#: Bracket styles (a family's bracket type is its series then the style).
STYLES = ('LightLeft', 'LightRight', 'HeavyLeftInside', 'HeavyLeftOutside',
          'HeavyRightInside', 'HeavyRightOutside')
#: Actuator sizes, smaller first: a family's sizes in order (X5 and X8; T5 and T8; R8
#: for both).
SIZES = ('small', 'large')
#: Twist choices, as written.
TWIST_NAMES = ('0', 'pi/2', 'pi', '-pi/2')
#: The base's grids (a task's :class:`~.task.BaseRange`): at most this far apart per
#: axis, m, and in yaw, rad (5 degrees); the ends of a range are on its grid.
BASE_STEP = 0.01
YAW_STEP = math.pi / 36


@dataclass(frozen=True)
class DesignResult:
    """What a search found.

    Attributes:
        evaluations: every design evaluated, in the order evaluated (kits first).
        kits: ``{kit name: its evaluation}`` of the kits evaluated.
        best: the distinct designs, best first (by :meth:`Evaluation.rank_key`).
    """

    evaluations: Tuple[Evaluation, ...]
    kits: Dict[str, Evaluation]
    best: Tuple[Evaluation, ...]

    @property
    def meets(self) -> bool:
        """True when the best design meets the task."""
        return bool(self.best) and self.best[0].meets

    def ranked(self) -> List[Evaluation]:
        """The distinct designs evaluated, best first (ties by the design's text)."""
        return ranked(self.evaluations)

    def lightest_kit(self) -> Optional[Tuple[str, Evaluation]]:
        """(name, evaluation) of the lightest kit that meets the task, or None."""
        met = [(e.mass, name) for name, e in self.kits.items() if e.meets]
        return (min(met)[1], self.kits[min(met)[1]]) if met else None


def ranked(evaluations) -> List[Evaluation]:
    """The distinct designs of ``evaluations``, best first (:meth:`Evaluation.rank_key`,
    ties by the design's text; a design evaluated twice counts once)."""
    seen, rows = set(), []
    for evaluation in sorted(evaluations, key=lambda e: e.rank_key() + (e.design.text(),)):
        if evaluation.design not in seen:
            seen.add(evaluation.design)
            rows.append(evaluation)
    return rows


def objective(evaluation: Evaluation) -> float:
    """The rank folded into one number for the sampler (module docstring)."""
    missed, excess, mass = evaluation.rank_key()
    return 1000.0 * missed + 10.0 * min(excess, 99.0) + mass


def _twist(name: str) -> float:
    return {text: value for value, text in TWIST_TEXT.items()}[name]


def design_of_trial(trial, task: Task) -> Design:
    """The design an Optuna trial's parameters say (module docstring), suggesting them:
    every parameter of every slot up to the task's largest DoF, used or not."""
    family = FAMILIES[trial.suggest_categorical('family', list(task.families))]
    dof = trial.suggest_int('dof', task.dof[0], task.dof[1])
    actuators, connectors = [], []
    for k in range(task.dof[1]):
        size = trial.suggest_categorical(f'size{k}', list(SIZES))
        actuators.append(strongest(family.sizes[min(SIZES.index(size),
                                                     len(family.sizes) - 1)]))
        if k == task.dof[1] - 1:
            break
        kind = trial.suggest_categorical(f'connector{k}', ['bracket', 'link'])
        style = trial.suggest_categorical(f'bracket{k}', list(STYLES))
        extension = trial.suggest_float(f'extension{k}', MIN_EXTENSION, MAX_EXTENSION,
                                        step=EXTENSION_STEP)
        twist = trial.suggest_categorical(f'twist{k}', list(TWIST_NAMES))
        connectors.append(Connector('bracket', family.parts + style) if kind == 'bracket'
                          else Connector('link', family.parts, round(extension, 6),
                                         _twist(twist)))
    end = family.gripper if task.gripper == 'parallel' else 'Custom'
    base = (0.0, 0.0, 0.0, 0.0)
    if task.base is not None:
        base = tuple(grid[trial.suggest_int(name, 0, len(grid) - 1)] if len(grid) > 1
                     else grid[0] for name, grid in base_grids(task.base))
    return Design(tuple(actuators[:dof]), tuple(connectors[:dof - 1]), end, base)


def base_grids(base: BaseRange) -> List[Tuple[str, Tuple[float, ...]]]:
    """(parameter, values) of the base's x, y, z (m) and yaw (rad): each range cut into
    equal steps of at most :data:`BASE_STEP` (:data:`YAW_STEP`), both ends included; a
    full turn without its end (the start again); a range narrower than a step, its
    point nearest to 0."""
    out = []
    for name, lo, hi, step in (('base_x', base.low[0], base.high[0], BASE_STEP),
                               ('base_y', base.low[1], base.high[1], BASE_STEP),
                               ('base_z', base.low[2], base.high[2], BASE_STEP),
                               ('base_yaw', base.yaw[0], base.yaw[1], YAW_STEP)):
        if hi - lo < step:           # narrower than a step: the point nearest to 0
            out.append((name, (min(max(0.0, lo), hi),)))
            continue
        turn = name == 'base_yaw' and hi - lo >= 2.0 * math.pi - 1e-12
        count = math.ceil((hi - lo) / step - 1e-9)
        values = [round(lo + (hi - lo) * i / count, 9) for i in range(count + 1)]
        out.append((name, tuple(values[:-1] if turn else values)))
    return out


def base_seed(task: Task) -> Tuple[float, float, float, float]:
    """Where the kits stand when the task lets the base move: the grid point nearest
    to the point of the range nearest to the targets' centroid, the yaw nearest to 0."""
    if task.base is None:
        return (0.0, 0.0, 0.0, 0.0)
    centroid = [sum(t.position[i] for t in task.targets) / len(task.targets)
                for i in range(3)]
    wanted = list(task.base.nearest(centroid)) + [0.0]
    return tuple(min(grid, key=lambda v: (abs(v - w), v))
                 for (_, grid), w in zip(base_grids(task.base), wanted))


def parameters(design: Design, task: Optional[Task] = None) -> Dict[str, object]:
    """The trial parameters of a design's slots (:func:`design_of_trial`'s inverse), to
    enqueue; the slots past its DoF are left to the sampler. With a task whose base may
    move, the base's too (the grid points nearest to the design's base).

    Raises:
        ValueError: a design outside the search's space (a twist it lacks).
    """
    family = design.family
    params: Dict[str, object] = {'family': family.name, 'dof': len(design.actuators)}
    for k, actuator in enumerate(design.actuators):
        params[f'size{k}'] = SIZES[family.sizes.index(size_of(actuator))]
    for k, c in enumerate(design.connectors):
        if c.kind == 'bracket':
            params[f'connector{k}'] = 'bracket'
            params[f'bracket{k}'] = c.type[len(family.parts):]
            continue
        if c.twist not in TWIST_TEXT:
            raise ValueError(f'connector {k}: twist {c.twist} is not one of the search\'s')
        params[f'connector{k}'] = 'link'
        params[f'extension{k}'] = c.extension
        params[f'twist{k}'] = TWIST_TEXT[c.twist]
    if task is not None and task.base is not None:
        for (name, grid), value in zip(base_grids(task.base), design.base):
            if len(grid) > 1:
                params[name] = min(range(len(grid)), key=lambda i: abs(grid[i] - value))
    return params


def smaller(design: Design, tried: set, limit: int) -> List[Design]:
    """The incumbent's geometry with smaller actuators: every large size small, then
    each pair of large sizes small, then each one (base to tip), leaving out those in
    ``tried``; the first ``limit`` of them, added to ``tried`` (the rest come with the
    next calls). One size for another moves the
    joints after it along the axis by the difference of the actuators' heights, so that
    pairs across a link twisted by pi can cancel where one alone misses every target;
    the sampler, whose best trials all have the larger sizes there, seldom tries both
    at once."""
    family = design.family
    if len(family.sizes) < 2:
        return []
    small = strongest(family.sizes[0])
    large = [k for k, a in enumerate(design.actuators) if size_of(a) != family.sizes[0]]
    sets = [tuple(large)] + [(i, j) for n, i in enumerate(large) for j in large[n + 1:]] \
        + [(k,) for k in large]
    out = []
    for flip in sets:
        if not flip:
            continue
        actuators = [small if k in flip else strongest(size_of(a))
                     for k, a in enumerate(design.actuators)]
        candidate = design.with_actuators(actuators)
        if len(out) < limit and candidate not in tried:
            tried.add(candidate)
            out.append(candidate)
    return out


def fitting_kits(task: Task) -> List[Tuple[str, Design]]:
    """The kits (with the task's gripper) whose family and DoF the task allows, at
    :func:`base_seed`."""
    base = base_seed(task)
    return [(name, Design(d.actuators, d.connectors, d.end_effector, base))
            for name, d in kit_designs(task.gripper == 'parallel')
            if d.family.name in task.families
            and task.dof[0] <= len(d.actuators) <= task.dof[1]]


def search(task: Task, evaluate_batch: Callable[[List[Design]], List[Evaluation]], *,
           seed: int = 0, evaluations: Optional[int] = None, top: int = 5,
           progress: Optional[Callable[[int, int], None]] = None) -> DesignResult:
    """Search the space for the lightest design that meets the task (module docstring).

    Args:
        task: the task.
        evaluate_batch: evaluates designs, returning their evaluations in order (an
            engine of :mod:`.engines`).
        seed: the sampler's seed.
        evaluations: designs to evaluate (default :data:`DEFAULT_EVALUATIONS`); at least
            the fitting kits are evaluated.
        top: distinct designs kept in ``best``.
        progress: called with (designs evaluated, budget) after each batch.

    Raises:
        ImportError: Optuna missing (the design extra).
        ValueError: ``evaluations`` or ``top`` < 1.
    """
    budget = DEFAULT_EVALUATIONS if evaluations is None else evaluations
    if not (isinstance(budget, int) and budget >= 1 and isinstance(top, int) and top >= 1):
        raise ValueError(f'evaluations and top must be integers >= 1, got {budget!r}, {top!r}')
    kits = fitting_kits(task)
    with Sampler(task, seed) as sampler:
        sold = evaluate_batch([d for _, d in kits], size=False) if kits else []
        for _, design in kits:
            sampler.enqueue(parameters(design, task), skip_if_exists=True)
        total = len(kits) + max(budget - len(kits), len(kits))
        done: List[Evaluation] = list(sold)
        if progress is not None and done:
            progress(len(done), total)
        tried = set()
        while len(done) < total:
            if len(done) > len(sold):
                for design in smaller(ranked(done)[0].design, tried, SMALLER_PER_BATCH):
                    sampler.enqueue(parameters(design, task))
            asked = sampler.ask(min(BATCH, total - len(done)))
            designs = [design for _, design in asked]
            tried.update(designs)
            results = evaluate_batch(designs)
            sampler.tell([(number, objective(result))
                          for (number, _), result in zip(asked, results)])
            done.extend(results)
            if progress is not None:
                progress(len(done), total)
    kit_results = {name: e for (name, _), e in zip(kits, sold)}
    return DesignResult(tuple(done), kit_results, tuple(ranked(done)[:top]))


__all__ = ['BATCH', 'DEFAULT_EVALUATIONS', 'DesignResult', 'design_of_trial',
           'fitting_kits', 'objective', 'parameters', 'ranked', 'search']
