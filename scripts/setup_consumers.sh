#!/usr/bin/env bash
# Install the programs the consumer tests load hrdf_ros's URDF/SDF into (pytest marker
# `consumers`, test/test_consumers_*.py), on top of the project environment (.venv from
# scripts/setup_env.sh):
#
#   1. Debian packages (apt-get, needs root): liburdfdom-tools (check_urdf),
#      python3-pykdl (KDL, as ROS kdl_parser uses it), ignition-tools + libsdformat-dev
#      (`ign sdf`, SDFormat 12: libsdformat-dev carries the `sdf` subcommand of `ign`),
#      chromium + chromium-driver (the browser the view tests drive, headless)
#   2. PyPI packages into .venv: drake, mujoco, pybullet, pin, selenium, pytracik, mplib
#      and timor-python (an sdist, built here)
#      (scripts/requirements-consumers.txt, locked by scripts/constraints-consumers.txt)
#   3. Debian's PyKDL module linked into .venv (it is built for CPython 3.11, the venv's
#      ABI; a link exposes only that module, not the rest of /usr/lib/python3/dist-packages)
#
# Idempotent: each step checks what is there first; a re-run takes about a second.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VPY="$ROOT/.venv/bin/python"
STAMPS="$ROOT/.venv/.hrdf-stamps"
REQ="$ROOT/scripts/requirements-consumers.txt"
CON="$ROOT/scripts/constraints-consumers.txt"
PYKDL_SO=/usr/lib/python3/dist-packages/PyKDL.cpython-311-x86_64-linux-gnu.so
SDF_CMD=/usr/lib/ruby/ignition/cmdsdformat12.rb

log() { printf '[setup_consumers] %s\n' "$*"; }
die() { printf '[setup_consumers] ERROR: %s\n' "$*" >&2; exit 1; }

[[ -x "$VPY" ]] || die ".venv is missing; run 'make env' first"
mkdir -p "$STAMPS"

# 1. Debian packages
missing=()
command -v check_urdf >/dev/null || missing+=(liburdfdom-tools)
[[ -f "$PYKDL_SO" ]] || missing+=(python3-pykdl)
{ command -v ign >/dev/null && [[ -f "$SDF_CMD" ]]; } || missing+=(ignition-tools libsdformat-dev)
[[ -x /usr/bin/chromium ]] || missing+=(chromium)
[[ -x /usr/bin/chromedriver ]] || missing+=(chromium-driver)
if [[ ${#missing[@]} -gt 0 ]]; then
    [[ $(id -u) -eq 0 ]] || die "missing Debian packages (${missing[*]}); as root: apt-get install ${missing[*]}"
    log "apt-get install ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    if ! apt-get install -y -q --no-install-recommends "${missing[@]}"; then
        log "apt-get install failed; running apt-get update and retrying"
        apt-get update -q
        apt-get install -y -q --no-install-recommends "${missing[@]}"
    fi
fi
log "check_urdf, PyKDL, ign sdf $(ign sdf --versions 2>/dev/null | tail -n1), chromium ready"

# 2. PyPI wheels
req_hash="$(cat "$REQ" "$CON" "$ROOT/scripts/constraints.txt" | sha256sum | cut -d' ' -f1)"
stamp="$STAMPS/consumers-requirements.sha256"
if [[ -f "$stamp" && "$(cat "$stamp")" == "$req_hash" ]]; then
    log "drake, mujoco, pybullet, pin, selenium, pytracik, mplib, timor-python up to date"
else
    log "install -r requirements-consumers.txt (scripts/venv_install.sh)"
    (cd "$ROOT/scripts" && "$ROOT/scripts/venv_install.sh" -r "$REQ")
    echo "$req_hash" > "$stamp"
fi

# 3. PyKDL into the venv
site="$("$VPY" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')"
ln -sf "$PYKDL_SO" "$site/"
(cd / && "$VPY" -c 'import PyKDL, pydrake, mujoco, pybullet, pinocchio, selenium' >/dev/null 2>&1) \
    || die "a consumer does not import in .venv (python -c 'import PyKDL, pydrake, mujoco, pybullet, pinocchio, selenium')"
log "done"
