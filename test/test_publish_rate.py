"""publish_frequency / ignore_timestamp as robot_state_publisher computes them: the least
stamp distance between two /tf publications (its ``milliseconds(uint64(1000.0 / f))``)."""
import pytest

from hrdf_ros.ros.parameter_table import MAX_PUBLISH_FREQUENCY
from hrdf_ros.ros.parameters import throttle_interval_ns


@pytest.mark.parametrize('frequency,interval_ms', [
    (20.0, 50), (10.0, 100), (3.0, 333), (7.0, 142), (1000.0, 1), (0.5, 2000),
    (999.0, 1), (1e-3, 1_000_000)])
def test_interval_is_whole_milliseconds(frequency, interval_ms):
    assert throttle_interval_ns(frequency, False) == interval_ms * 1_000_000


def test_zero_frequency_or_ignore_timestamp_means_no_limit():
    assert throttle_interval_ns(0.0, False) == 0
    assert throttle_interval_ns(20.0, True) == 0
    assert MAX_PUBLISH_FREQUENCY == 1000.0
