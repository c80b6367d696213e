"""A reach and payload map as data: :class:`ReachMap`, saved to and loaded from ``.npz``.

In: the arrays :func:`~hrdf_ros.reach.build.reach_map` computes. Out: the map, its
summary numbers, and a ``.npz`` file whose bytes depend only on the arrays (a zip whose
members carry a fixed date, unlike ``numpy.savez``'s, which stamps the time of writing).
"""
from __future__ import annotations

import io
import zipfile
from dataclasses import MISSING, dataclass, fields
from typing import Dict, Tuple

import numpy as np

#: The zip members' date (the earliest a zip can hold): the file does not change with
#: the time it was written.
ZIP_DATE = (1980, 1, 1, 0, 0, 0)


@dataclass(frozen=True)
class ReachMap:
    """Where an end effector reaches, in which tool directions, and what it holds there.

    Every position is in the robot's reference frame (the frame
    :meth:`~hrdf_ros.kinematics.Kinematics.end_effector` returns), in m; joint positions
    in rad (m for prismatic joints), in degree-of-freedom order.

    Attributes:
        voxel: m, the lattice spacing.
        directions: (N, 3) unit vectors, the tool directions (a Fibonacci sphere).
        centers: (M, 3) m, the lattice points ``k * voxel`` in reach.
        reachable: (M,) bool, position-only IK puts the end effector's origin at the
            centre (in a configuration free of collision, when ``avoid_collisions``).
        solved: (M, N) bool, IK with the ``'tip_axis'`` objective (the end effector's z
            axis along ``directions[k]``, roll free) succeeds at the centre (free of
            collision, when ``avoid_collisions``).
        reachability: (M,) the reachability index, ``solved.mean(axis=1)`` (Zacharias
            et al. 2007; Reuleaux).
        positions: (M, dof) the best configuration found at the centre: of the solved
            directions' solutions the one with the largest payload, else the
            position-only solution; NaN where the centre is not reachable. A revolute
            joint without limits is given in [-pi, pi) (over its gear ratio).
        manipulability: (M,) Yoshikawa's measure at ``positions``: sqrt(det(J J^T)) of
            the end effector's geometric Jacobian over the joints that move it (6 x m;
            sqrt(det(J^T J)) for m < 6); NaN where not reachable.
        payload: (M,) kg, the largest mass at the end effector's origin the actuators
            hold at ``positions`` against gravity (0, 0, -9.81) within their effort
            limits (:mod:`~hrdf_ros.reach.payload`); 0 where the arm cannot hold
            itself, NaN where not reachable.
        binding_joint: (M,) int, the degree of freedom whose effort limit sets
            ``payload``; -1 where none does (not reachable, or no joint feels the mass).
        joint_names: (dof,) str, the model's joint names.
        effort_limits: (dof,) N m (N), the limits the payload was computed under.
        end_effector: the end effector's index.
        avoid_collisions: every configuration the map counts is free of collision: of
            the robot's links with each other (the pairs MoveIt checks: the SRDF's
            disabled pairs are not) and with the collision objects the map was built
            with (:class:`~hrdf_ros.motion.scene.PlanningScene`'s checks). False: the
            map ignores collisions.
    """

    voxel: float
    directions: np.ndarray
    centers: np.ndarray
    reachable: np.ndarray
    solved: np.ndarray
    reachability: np.ndarray
    positions: np.ndarray
    manipulability: np.ndarray
    payload: np.ndarray
    binding_joint: np.ndarray
    joint_names: Tuple[str, ...]
    effort_limits: np.ndarray
    end_effector: int = 0
    avoid_collisions: bool = False

    def scale_top(self, field: str) -> float:
        """The top of a colour scale for ``field`` (``'reachability'``, ``'payload'`` or
        ``'manipulability'``): 1 for the index; else the 99th percentile of the finite
        values at the reachable points (1 when there are none), so that a few points
        near a singularity (or an infinite payload) do not wash out the rest."""
        if field == 'reachability':
            return 1.0
        value = np.asarray(getattr(self, field), dtype=float)
        finite = value[self.reachable & np.isfinite(value)]
        return float(np.quantile(finite, 0.99)) if len(finite) else 1.0

    def arrays(self) -> Dict[str, np.ndarray]:
        """Every field as a numpy array (what :meth:`save` writes)."""
        out = {}
        for f in fields(self):
            value = getattr(self, f.name)
            out[f.name] = np.array(list(value), dtype=str) if f.name == 'joint_names' \
                else np.asarray(value)
        return out

    def save(self, path: str) -> None:
        """Write the map to ``path`` as ``.npz`` (``numpy.load`` reads it; one ``.npy``
        member per field, stored deflated). Raises OSError when it cannot be written."""
        with zipfile.ZipFile(path, 'w', compression=zipfile.ZIP_DEFLATED) as archive:
            for name, value in self.arrays().items():
                buffer = io.BytesIO()
                # np.ascontiguousarray would make a 0-d array 1-d
                np.lib.format.write_array(buffer, np.require(value, requirements='C'),
                                          allow_pickle=False)
                info = zipfile.ZipInfo(name + '.npy', date_time=ZIP_DATE)
                info.compress_type = zipfile.ZIP_DEFLATED
                info.external_attr = 0o644 << 16
                archive.writestr(info, buffer.getvalue())

    @classmethod
    def load(cls, path: str) -> 'ReachMap':
        """Read a map :meth:`save` wrote.

        Raises:
            OSError: when the file cannot be read.
            ValueError: when it is not a reach map: a field missing, shapes that
                disagree.
        """
        try:
            with np.load(path, allow_pickle=False) as data:
                # a field with a default may be missing: a map saved before it existed
                values = {f.name: data[f.name] for f in fields(cls)
                          if f.name in data.files or f.default is MISSING}
        except KeyError as exc:
            raise ValueError(f'{path}: not a reach map (no field {exc})') from None
        except (zipfile.BadZipFile, EOFError, ValueError) as exc:
            # numpy takes a file that is not a zip or .npy for a pickle, and refuses it
            raise ValueError(f'{path}: not a reach map ({exc})') from None
        values['voxel'] = float(values['voxel'])
        values['end_effector'] = int(values.get('end_effector', 0))
        values['avoid_collisions'] = bool(values.get('avoid_collisions', False))
        values['joint_names'] = tuple(str(n) for n in values['joint_names'])
        result = cls(**values)
        result.check()
        return result

    def check(self) -> None:
        """ValueError when the arrays' shapes disagree."""
        m, n, dof = len(self.centers), len(self.directions), len(self.joint_names)
        expected = {'directions': (n, 3), 'centers': (m, 3), 'reachable': (m,),
                    'solved': (m, n), 'reachability': (m,), 'positions': (m, dof),
                    'manipulability': (m,), 'payload': (m,), 'binding_joint': (m,),
                    'effort_limits': (dof,)}
        for name, shape in expected.items():
            if np.shape(getattr(self, name)) != shape:
                raise ValueError(f'reach map: {name} has shape {np.shape(getattr(self, name))}'
                                 f', expected {shape}')
        if not self.voxel > 0:
            raise ValueError(f'reach map: voxel must be > 0, got {self.voxel}')
