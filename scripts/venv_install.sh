#!/usr/bin/env bash
# `pip install ARGS` into the project's .venv, done by uv (`uv pip install`: the same
# requirement and constraint files, the same resolution, measured 8.9 s against pip's
# 85.6 s for requirements-ros + requirements-dev) when .venv has it, by pip otherwise.
# setup_env.sh puts uv (pinned in constraints.txt) into .venv first; without a network
# to fetch it, pip does the work, only slower. Relative paths are relative to the
# caller's directory, as with pip. --compile-bytecode: as pip does, every module is
# compiled at install time; without it a Python that may not write bytecode
# (PYTHONDONTWRITEBYTECODE, read-only installs) compiles rclpy, the ros2 CLI and the rest
# on every start (measured: `ros2 pkg prefix` 0.56 s -> 1.17 s).
set -euo pipefail
VENV="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/.venv"
if [[ -x "$VENV/bin/uv" ]]; then
    exec "$VENV/bin/uv" pip install --quiet --compile-bytecode --python "$VENV/bin/python" "$@"
fi
exec "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check "$@"
