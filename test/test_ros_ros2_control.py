"""The node's ros2_control parameter over real DDS: robot_description carries the
<ros2_control> block of the chosen hardware; a bad choice stops the node at start."""
import subprocess
import sys
import xml.etree.ElementTree as ET

from conftest import BUNDLED_ARM
from ros_helpers import run_node, stop


def test_robot_description_has_the_ros2_control_block(probe):
    process = run_node(BUNDLED_ARM, ros2_control='hebi', hebi_config_pkg='hebi_description',
                       hebi_config_file='config/arms/A-2085-06.cfg.yaml')
    try:
        assert probe.wait_for_node()
        assert probe.spin_until(lambda: probe.robot_description, 30.0)
        [system] = ET.fromstring(probe.robot_description).findall('ros2_control')
        assert system.find('hardware/plugin').text == 'hebi_hardware/HEBIHardwareInterface'
        assert [p.text for p in system.findall('hardware/param')] == [
            'hebi_description', 'config/arms/A-2085-06.cfg.yaml']
        assert [j.get('name') for j in system.findall('joint')] == [
            f'J{k}' for k in range(1, 7)]
    finally:
        stop(process)


def test_bad_ros2_control_parameter_stops_the_node():
    for value, message in (('ethercat', 'must be one of'), ('hebi', 'HEBI robot config')):
        result = subprocess.run(
            [sys.executable, '-m', 'hrdf_ros.ros.node', '--ros-args', '-p',
             f'hrdf_file:={BUNDLED_ARM}', '-p', f'ros2_control:={value}'],
            capture_output=True, text=True, timeout=60)
        assert result.returncode == 1
        assert message in result.stderr and 'Traceback' not in result.stderr
