"""The servo's collision checks: how much a command must slow for the planning scene's
checked pairs, and the proof that a step keeps them apart.

In: the planning scene (:class:`~hrdf_ros.motion.scene.PlanningScene`: the robot with
itself, with the collision objects and the floor), :class:`~.parameters.ServoParameters`,
(dof,) states in HEBI units and joint velocities. Out: a factor in [0, 1] with its
status, and whether a straight step is proven to keep every pair apart by its margin.

Per checked pair p: a halt distance h_p (``self_collision_proximity_threshold`` for the
robot's own links, ``scene_collision_proximity_threshold`` for objects and the floor; a
pair closer than that where the servo started: half its distance there, so that an arm
whose wrist actuators sit 7 mm apart can move at all), and a slow-down band above it
(``collision_slowdown_distance``; for such a pair, the other half). A pair in its band
that the command brings closer (its distance 10 ms ahead along the command is less)
may close no faster than (d_p - h_p) / ``collision_slowdown_time``, and no faster than
lets it stop before h_p at the deceleration the joints' limits allow (see
:mod:`.core`); a factor of 1 % or less is a halt. Distances are the scene's lower bounds
(:meth:`~hrdf_ros.motion.scene_proofs.SceneProofs.near_distances`: hpp-fcl's, less its
tolerance, for the pairs near enough to count), computed once a step.
"""
from __future__ import annotations

from typing import Tuple

import numpy as np

from .parameters import ServoParameters
from .status import StatusCode

#: s: how far ahead along the command the closing of a pair is looked for.
LOOK_AHEAD = 0.01
#: The braking takes a pair to close this many times faster than the look-ahead saw.
BRAKE_RATE_FACTOR = 1.5
#: A slow-down to this share of the command or less is a halt (0): a slow-down only
#: approaches its halt distance, and would creep on for ever.
HALT_SCALE = 0.01


class CollisionGuard:
    """The collision slow-down and step proofs of one servo (module docstring)."""

    def __init__(self, scene, parameters: ServoParameters, lower: np.ndarray,
                 upper: np.ndarray):
        self.scene = scene
        self.parameters = parameters
        self._lower, self._upper = lower, upper
        clearance = scene.clearance
        self.threshold = np.full(len(clearance.pairs),
                                 parameters.scene_collision_proximity_threshold)
        self.threshold[clearance.robot_rows] = parameters.self_collision_proximity_threshold
        self.halt = self.threshold.copy()
        self.band = np.full(len(clearance.pairs), parameters.collision_slowdown_distance)
        self._weights = np.asarray(scene.weights, dtype=float)
        self._distances = None
        self._at = None

    def start_at(self, positions: np.ndarray) -> None:
        """The halt distances and bands for a servo starting at (dof,) ``positions``."""
        present = self.scene.near_distances(positions, float(self.threshold.max()) * 2.0)
        inside = present < self.threshold
        self.halt = np.where(inside, np.clip(present, 0.0, None) / 2.0, self.threshold)
        self.band = np.where(inside, self.halt, self.parameters.collision_slowdown_distance)
        self._distances = None

    def distances(self, positions: np.ndarray) -> np.ndarray:
        """(P,) lower bounds on every checked pair's distance at (dof,) ``positions``, m
        (exact within the bands), remembered for the last state asked."""
        if self._distances is None or not np.array_equal(self._at, positions):
            reach = float((self.halt + self.band).max())
            self._distances = self.scene.near_distances(positions, reach)
            self._at = positions.copy()
        return self._distances

    def scale(self, positions: np.ndarray, wanted: np.ndarray, alpha: float
              ) -> Tuple[float, StatusCode]:
        """(the factor on the (dof,) joint velocities ``wanted`` at ``positions``, its
        status); ``alpha`` is how fast that factor may fall per second (:mod:`.core`)."""
        p = self.parameters
        distances = self.distances(positions)
        near = np.flatnonzero(distances < self.halt + self.band)
        if not len(near):
            return 1.0, StatusCode.NO_WARNING
        ahead = np.clip(positions + wanted * LOOK_AHEAD, self._lower, self._upper)
        later = self.scene.row_distances(ahead, near)
        shrinking = later < distances[near]
        closing = near[shrinking]
        if not len(closing):
            return 1.0, StatusCode.NO_WARNING
        room = np.clip(distances[closing] - self.halt[closing], 0.0, None)
        # m per s at factor 1: how fast the command closes each pair
        rate = (distances[closing] - later[shrinking]) / LOOK_AHEAD
        ramp = room / (p.collision_slowdown_time * rate)
        brake = np.sqrt(2.0 * alpha * room / (BRAKE_RATE_FACTOR * rate)) \
            - alpha * p.publish_period
        factor = float(np.clip(min(ramp.min(), brake.min()), 0.0, 1.0))
        if factor <= HALT_SCALE:
            return 0.0, StatusCode.HALT_FOR_COLLISION
        return factor, (StatusCode.DECELERATE_FOR_COLLISION if factor < 1.0
                        else StatusCode.NO_WARNING)

    def step_proven(self, start: np.ndarray, goal: np.ndarray) -> bool:
        """The straight step from ``start`` to ``goal`` keeps every checked pair farther
        apart than its margin (its halt distance, or half its distance at ``start`` if
        less): at once when each pair's distance at ``start`` less the most the step can
        change it (the rows' weights times each joint's travel:
        :func:`~hrdf_ros.motion.resolution.pair_weights`, no prismatic joint held) stays
        above it, else by the scene's certified check."""
        present = self.distances(start)
        margins = np.clip(np.minimum(self.halt, present / 2.0), 0.0, None)
        if not self.scene.slides and np.all(
                present - self._weights @ np.abs(goal - start) > margins):
            return True
        return self.scene.segment_free(start, goal, margins)
