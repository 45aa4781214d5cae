#!/usr/bin/env bash
# run_target.sh FUZZER NAME WORK_DIR: one fuzz target, as ctest runs it in the sanitizer build (label
# fuzz): MLH_FUZZ_SECONDS (default 15) on its committed corpus fuzz/corpus/NAME, new inputs kept in
# WORK_DIR/NAME (not in the tree). A crash, hang, leak or any exception but UserError fails it, with
# the input saved as WORK_DIR/NAME-crash-<hash> and named.
# MLH_FUZZ_GROW=1 (launch/sanitize.sh --grow): afterwards the inputs that reach new coverage are merged
# into fuzz/corpus/NAME (libFuzzer's -merge=1), for a commit: the corpus grows run by run.
set -uo pipefail
fuzzer=$1 name=$2 work=$3
corpus=$(cd "$(dirname "$0")" && pwd)/corpus/$name
seconds=${MLH_FUZZ_SECONDS:-15}
[ -d "$corpus" ] || { echo "run_target.sh: no corpus $corpus" >&2; exit 1; }
rm -rf "${work:?}/$name"
mkdir -p "$work/$name"
if ! "$fuzzer" -max_total_time="$seconds" -rss_limit_mb=4096 -timeout=10 -artifact_prefix="$work/$name-" \
    "$work/$name" "$corpus" >"$work/$name.log" 2>&1; then
  tail -n 60 "$work/$name.log"
  echo "run_target.sh: $name found a crash, hang, leak or an exception other than UserError: $(ls "$work/$name"-* 2>/dev/null)"
  exit 1
fi
echo "$name: $(grep -E '^#[0-9]+[[:space:]]+DONE' "$work/$name.log" | tail -n 1)"
if [ "${MLH_FUZZ_GROW:-0}" = 1 ]; then
  before=$(find "$corpus" -type f | wc -l)
  "$fuzzer" -merge=1 -rss_limit_mb=4096 -timeout=10 "$corpus" "$work/$name" >"$work/$name.merge.log" 2>&1 ||
    { tail -n 20 "$work/$name.merge.log"; exit 1; }
  echo "$name: corpus $before -> $(find "$corpus" -type f | wc -l) files (fuzz/corpus/$name: commit the new ones)"
fi
