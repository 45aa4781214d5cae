#!/usr/bin/env bash
# run_test_binaries.sh [--filter GTEST_FILTER] BINARY...: runs each GoogleTest binary whole, in one
# process, as many side by side as there are cores, each in its own folder (where ctest runs the TESTs
# it discovers in it). ctest starts a process per TEST, and every start of a LibTorch binary costs
# about half a second (seconds under ASan): for the 932 unit TESTs, minutes of launch/test.sh. Prints
# a line per binary, and a failing binary's whole output; exits 1 when a binary fails or runs past
# 10 minutes. launch/test.sh runs every unit binary of a build this way (the list CMake writes):
#   bash launch/run_test_binaries.sh $(cat build/tests/unit_test_binaries.txt)
set -euo pipefail
filter=""
if [ "${1:-}" = --filter ]; then
  filter=$2
  shift 2
fi
if [ $# = 0 ]; then
  echo "run_test_binaries.sh: no test binary given" >&2
  exit 2
fi
for binary in "$@"; do
  if [ ! -x "$binary" ]; then
    echo "run_test_binaries.sh: $binary is not built" >&2
    exit 1
  fi
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

run_one() {
  local binary log
  binary=$(realpath "$1")
  log="$work/$(basename "$binary").log"
  local status=0 started=$SECONDS passed skipped
  (cd "$(dirname "$binary")" && timeout 600 "$binary" ${filter:+"--gtest_filter=$filter"}) > "$log" 2>&1 || status=$?
  if [ "$status" = 0 ]; then
    passed=$(sed -n 's/^\[  PASSED  \] \([0-9]*\) tests\{0,1\}\..*/\1/p' "$log")
    skipped=$(sed -n 's/^\[  SKIPPED \] \([0-9]*\) tests\{0,1\},.*/\1/p' "$log")
    echo "$(basename "$binary"): ${passed:-0} passed${skipped:+, $skipped skipped}, in $((SECONDS - started)) s"
  else
    cat "$log"
    echo "run_test_binaries.sh: $(basename "$binary") failed (exit $status$([ "$status" = 124 ] && echo ': timed out'))" >&2
    return 1
  fi
}
export -f run_one
export work filter
# One thread each, as many binaries as cores: LibTorch's OpenMP threads wait spinning for each other,
# and two binaries of two threads each on two cores took three times as long (mlh_workloads_tests:
# 19 s alone, 58 s beside the others, 18 s on one thread beside them). Largest binary first.
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-1}
if ! ls -S "$@" | xargs -P "$(nproc)" -I{} bash -c 'run_one "$1"' _ {}; then
  echo "run_test_binaries.sh: not every binary passed (their output is above)" >&2
  exit 1
fi
