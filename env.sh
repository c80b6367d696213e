# Source this file (bash/zsh) to use the project's .venv with the ros2 command line:
#   source env.sh
#   ros2 launch hrdf_ros hrdf.launch.py
# It activates .venv (python, hrdf, ros2 on PATH) and puts .venv first on
# AMENT_PREFIX_PATH, where `ros2 launch/run/pkg` and get_package_share_directory look
# for packages (`make env` installs hrdf_ros there as colcon would).
_hrdf_ros_root="$(cd "$(dirname "${BASH_SOURCE[0]:-$0}")" && pwd)"
if [ ! -f "$_hrdf_ros_root/.venv/bin/activate" ]; then
    echo "env.sh: $_hrdf_ros_root/.venv does not exist; run 'make env' first" >&2
else
    . "$_hrdf_ros_root/.venv/bin/activate"
    case ":${AMENT_PREFIX_PATH:-}:" in
        *":$_hrdf_ros_root/.venv:"*) ;;
        *) export AMENT_PREFIX_PATH="$_hrdf_ros_root/.venv${AMENT_PREFIX_PATH:+:$AMENT_PREFIX_PATH}" ;;
    esac
fi
unset _hrdf_ros_root
