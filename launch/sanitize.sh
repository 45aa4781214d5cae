#!/usr/bin/env bash
# The parsers and the harness under AddressSanitizer + UndefinedBehaviorSanitizer, and every fuzz
# target briefly: configures and builds build-asan with clang (-DMLH_SANITIZE=ON -DMLH_FUZZ=ON),
# only the unit test binaries of compliance, report, harness and datasets and the fuzz/ targets, runs
# those unit tests, then each fuzz target for 15 s on its committed corpus (fuzz/corpus/<name>), as
# the ctest tests of label fuzz in build-asan (fuzz/run_target.sh).
# Any sanitizer report, failing test or fuzz finding fails the script. Installs clang if missing.
#   bash launch/sanitize.sh
#   MLH_FUZZ_SECONDS=600 bash launch/sanitize.sh    longer fuzz runs
#   bash launch/sanitize.sh --grow                  and merge the inputs that reach new coverage into
#                                                   fuzz/corpus/<name>, for a commit
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir=${MLH_ASAN_BUILD_DIR:-build-asan}
fuzz_seconds=${MLH_FUZZ_SECONDS:-15}
grow=0
if [ "${1:-}" = --grow ]; then grow=1; fi
jobs=$(nproc)

# clang (Debian 12's clang 14, with the sanitizer and libFuzzer runtimes), installed as setup.sh
# installs the rest; setup.sh --build has installed everything else.
if ! command -v clang++ > /dev/null; then
  echo "installing: clang"
  sudo_cmd=""
  [ "$(id -u)" -ne 0 ] && sudo_cmd="sudo"
  $sudo_cmd apt-get update -q
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -q --no-install-recommends clang
fi
mkdir -p "$build_dir"
CC=clang CXX=clang++ cmake -S . -B "$build_dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DMLH_SANITIZE=ON -DMLH_FUZZ=ON > "$build_dir/configure.log" 2>&1 || {
  cat "$build_dir/configure.log" >&2; exit 1; }

parts=(compliance report harness datasets)
targets=()
for part in "${parts[@]}"; do
  targets+=($(sed -n 's/^mlh_add_tests(\([A-Za-z0-9_]*\).*/\1/p' "tests/$part/CMakeLists.txt"))
done
fuzzers=()
for source in fuzz/fuzz_*.cpp; do fuzzers+=("$(basename "$source" .cpp)"); done
echo "== building ${#targets[@]} unit test binaries and ${#fuzzers[@]} fuzz targets in $build_dir =="
cmake --build "$build_dir" -j "$jobs" --target "${targets[@]}" "${fuzzers[@]}"

# Tests a sanitizer build cannot run (the reason is in the file).
excluded=$(grep -v '^#' cmake/sanitizer_excluded_tests.txt | paste -sd:)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Each binary runs its tests in one process (ctest starts one per test, and under ASan each start of
# LibTorch costs seconds), the binaries side by side.
echo "== unit tests of ${parts[*]} under ASan + UBSan =="
binaries=()
for target in "${targets[@]}"; do
  binaries+=("$(find "$build_dir/tests" -type f -name "$target" -perm -u+x | head -n 1)")
done
bash launch/run_test_binaries.sh --filter "-$excluded" "${binaries[@]}"

echo "== each fuzz target for ${fuzz_seconds} s on its corpus (ctest -L fuzz) =="
fuzz_status=0
MLH_FUZZ_SECONDS=$fuzz_seconds MLH_FUZZ_GROW=$grow ctest --test-dir "$build_dir" -L fuzz --no-tests=error -V \
  -j "$jobs" > "$work/fuzz.log" 2>&1 || fuzz_status=$?
grep -E '^[0-9]+: [a-z_]+: (#|corpus)|tests passed|tests failed' "$work/fuzz.log" | sed -E 's/^[0-9]+: //' || true
if [ "$fuzz_status" != 0 ]; then
  tail -n 80 "$work/fuzz.log" >&2
  echo "sanitize.sh: a fuzz target found a crash, hang, leak or an exception other than UserError" >&2
  exit 1
fi
echo "sanitize.sh: all clean"
