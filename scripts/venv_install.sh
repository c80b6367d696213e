#!/usr/bin/env bash
# `pip install ARGS` into the project's .venv, done by uv (`uv pip install`: the same
# requirement and constraint files, the same resolution, measured 8.9 s against pip's
# 85.6 s for requirements-ros + requirements-dev) when .venv has it, by pip otherwise.
# setup_env.sh puts uv (pinned in constraints.txt) into .venv first; without a network
# to fetch it, pip does the work, only slower. Relative paths are relative to the
# caller's directory, as with pip.
set -euo pipefail
VENV="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/.venv"
if [[ -x "$VENV/bin/uv" ]]; then
    exec "$VENV/bin/uv" pip install --quiet --python "$VENV/bin/python" "$@"
fi
exec "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check "$@"
