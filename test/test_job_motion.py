"""The pieces of a CoBRA job's motion (:mod:`hrdf_ros.design.job_motion`) and the played
trajectory's states (:func:`hrdf_ros.motion.trajectory.states_at`): the samples' spacing,
the slowdown's closed form against the efforts it gives, the quintics' derivatives
against finite differences of the playback."""
import math

import numpy as np
import pytest

from hrdf_ros.design.job_motion import sample_times, slowdown, wrapped
from hrdf_ros.motion.trajectory import JointTrajectory, playback, states_at


@pytest.mark.parametrize('duration', [0.01, 0.0101, 0.019, 0.5, 3.28769680461865])
def test_samples_are_equal_intervals_of_at_most_a_step_ending_at_the_end(duration):
    times = sample_times(duration, 0.01)
    gaps = np.diff(np.concatenate([[0.0], times]))
    assert times[-1] == duration and np.all(gaps > 0)
    assert gaps.max() <= 0.01 + 1e-15 and gaps.max() - gaps.min() < 1e-12
    assert len(times) == math.ceil(duration / 0.01 - 1e-9)


def test_the_slowdown_is_the_least_that_keeps_every_sample_within():
    rng = np.random.default_rng(4)
    gravity = rng.uniform(-0.9, 0.9, (200, 6))
    ratios = gravity + rng.uniform(-3.0, 3.0, (200, 6))
    k = slowdown(ratios, gravity)
    assert k > 1.0

    def worst(factor):
        return np.abs(gravity + (ratios - gravity) / factor ** 2).max()
    assert worst(k) <= 1.0 + 1e-12 and worst(k * (1.0 - 1e-6)) > 1.0
    assert slowdown(gravity, gravity) == 1.0                   # at rest: no slowdown
    gravity[3, 2] = 1.01
    assert slowdown(ratios, gravity) is None                   # gravity alone too much


def test_revolute_joints_turn_into_minus_pi_to_pi_and_prismatic_ones_stay():
    q = np.array([3.5, -7.0, 0.25, 9.0])
    out = wrapped(q, np.array([True, True, True, False]))
    assert np.all(out[:3] >= -math.pi) and np.all(out[:3] < math.pi)
    np.testing.assert_allclose(np.cos(out[:3]), np.cos(q[:3]), atol=1e-15)
    assert out[3] == 9.0


def test_states_at_are_the_playback_and_its_derivatives():
    trajectory = JointTrajectory(
        ['a', 'b'], np.array([0.0, 0.4, 1.0]), np.array([[0.0, 1.0], [0.3, 0.5], [1.0, 0.0]]),
        np.array([[0.0, 0.0], [1.2, -0.9], [0.0, 0.0]]),
        np.array([[0.0, 0.0], [0.5, 2.0], [0.0, 0.0]]))
    times, positions = playback(trajectory, 1000.0)
    q, dq, ddq = states_at(trajectory, times)
    np.testing.assert_allclose(q, positions, atol=1e-14)
    h = 1e-6                                   # central differences of the quintics
    near = np.abs(times[:, None] - trajectory.time_from_start[None]).min(axis=1)
    inner = times[near > 2 * h]                # (the jerk jumps at a point)
    ahead, behind = states_at(trajectory, inner + h), states_at(trajectory, inner - h)
    at = states_at(trajectory, inner)
    np.testing.assert_allclose(at[1], (ahead[0] - behind[0]) / (2 * h), atol=1e-8)
    np.testing.assert_allclose(at[2], (ahead[1] - behind[1]) / (2 * h), atol=1e-7)
    assert np.abs(at[2]).max() > 1.0                           # it does accelerate
    knots = states_at(trajectory, trajectory.time_from_start)
    for got, want in zip(knots, (trajectory.positions, trajectory.velocities,
                                 trajectory.accelerations)):
        assert np.array_equal(got, want)                       # a point's own values
    with pytest.raises(ValueError, match='times'):
        states_at(trajectory, [1.5])
