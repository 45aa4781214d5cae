#!/usr/bin/env bash
# The test suite: installs and builds first if needed (launch/setup.sh --build), then every test of
# the build: the unit test binaries each run whole (launch/run_test_binaries.sh: a process per binary,
# not per TEST), then ctest for the rest. Labels: unit (the unit binaries' TESTs, for `ctest -L unit`),
# script (checks of the build, the layout and the launch scripts), e2e (mini runs), mpi (multi-rank),
# resume, fault, cuda, and full: the long runs to target (ResNet-50 on 2 ranks, GNMT on 4 ranks,
# minutes each on 2 cores) and their checks. Arguments go to that ctest (`-L fault` runs a part of it).
# Then launch/sanitize.sh: the parsers' and the harness' unit tests under ASan + UBSan (clang, in
# build-asan) and each fuzz target for 15 s on its corpus; MLH_SKIP_SANITIZE=1 leaves that out.
# Then the same tree built against PyPI's CUDA LibTorch 2.11 (launch/setup.sh --build --cuda, in
# build-cuda; only the targets run there): its unit binaries, the `cuda` tests (skipped without a
# GPU, each saying why), the script checks, the NCF mini run on the CPU, and the GPU check's two
# halves (launch/device_check.sh: pack the bundle, then run it at small sizes on the CPU).
# MLH_SKIP_CUDA_BUILD=1 leaves that out.
# Each part says when it starts and the whole says how long it took (the 45-minute aim of .ci/run).
set -euo pipefail
cd "$(dirname "$0")/.."
started=$SECONDS
elapsed() { echo "$(( (SECONDS - started) / 60 )) min $(( (SECONDS - started) % 60 )) s"; }
part() { echo; echo "== $1 (at $(elapsed)) =="; }
part "the build (launch/setup.sh --build)"
bash launch/setup.sh --build
build_dir=${MLH_BUILD_DIR:-build}
part "the unit test binaries in $build_dir, each whole"
mapfile -t unit_binaries < "$build_dir/tests/unit_test_binaries.txt"
bash launch/run_test_binaries.sh "${unit_binaries[@]}"
part "ctest in $build_dir: every test but the unit TESTs just run"
(cd "$build_dir" && ctest --output-on-failure --no-tests=error -j "$(nproc)" -LE unit "$@")

if [ "${MLH_SKIP_SANITIZE:-0}" != 1 ]; then
  part "ASan + UBSan and the fuzz targets (launch/sanitize.sh)"
  bash launch/sanitize.sh
fi
if [ "${MLH_SKIP_CUDA_BUILD:-0}" = 1 ]; then
  echo "== test.sh: passed in $(elapsed) =="
  exit 0
fi
part "the CUDA LibTorch 2.11 build (launch/setup.sh --build --cuda) of what is run below"
MLH_BUILD_DIR=build-cuda MLH_BUILD_TARGETS="mlharness mlh_unit_tests mlh_cuda_tests" \
  bash launch/setup.sh --build --cuda
part "its unit binaries, its cuda and script tests, and the NCF mini run on the CPU"
mapfile -t unit_binaries < build-cuda/tests/unit_test_binaries.txt
bash launch/run_test_binaries.sh "${unit_binaries[@]}"
cd build-cuda
ctest --output-on-failure --no-tests=error -j "$(nproc)" -L 'cuda|script'
ctest --output-on-failure --no-tests=error -R '^e2e[.]ncf_mini[.]run_np1_seed1$'
cd ..
part "the GPU check, packed and run here at small sizes on the CPU"
MLH_BUNDLE_XZ_LEVEL=0 MLH_BUNDLE_LIMIT_MIB=400 bash launch/device_check.sh pack build-cuda
MLH_TORCH_PYTHON="${MLH_TORCH_VENV:-$HOME/.cache/mlharness/torch-2.11}/bin/python" MLH_DEVICE=cpu MLH_QUICK=1 \
  OUT="$PWD/device-out" bash launch/device_check.sh run
echo "== test.sh: passed in $(elapsed) =="
