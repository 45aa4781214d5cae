#!/usr/bin/env bash
# The whole test suite: installs and builds first if needed (launch/setup.sh --build), then ctest.
# Labels: unit, e2e (mini runs to target), mpi (multi-rank). `bash launch/test.sh -L unit` runs a part.
# Then the same tree built against PyPI's CUDA LibTorch 2.11 (launch/setup.sh --build --cuda, in
# build-cuda): its unit tests and the NCF mini run, on the CPU. MLH_SKIP_CUDA_BUILD=1 leaves that out.
set -euo pipefail
cd "$(dirname "$0")/.."
bash launch/setup.sh --build
build_dir=${MLH_BUILD_DIR:-build}
(cd "$build_dir" && ctest --output-on-failure -j "$(nproc)" "$@")

if [ "${MLH_SKIP_CUDA_BUILD:-0}" = 1 ]; then exit 0; fi
echo
echo "== the CUDA LibTorch 2.11 build: unit tests and the NCF mini run on the CPU =="
MLH_BUILD_DIR=build-cuda bash launch/setup.sh --build --cuda
cd build-cuda
ctest --output-on-failure -j "$(nproc)" -L unit
ctest --output-on-failure -R '^e2e[.]ncf_mini[.]run_np1_seed1$'
