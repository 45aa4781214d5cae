#!/usr/bin/env bash
# The whole test suite: installs and builds first if needed (launch/setup.sh --build), then ctest.
# Labels: unit, e2e (mini runs to target), mpi (multi-rank). `bash launch/test.sh -L unit` runs a part.
set -euo pipefail
cd "$(dirname "$0")/.."
bash launch/setup.sh --build
build_dir=${MLH_BUILD_DIR:-build}
cd "$build_dir"
ctest --output-on-failure -j "$(nproc)" "$@"
