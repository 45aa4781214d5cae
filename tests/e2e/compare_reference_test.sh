#!/usr/bin/env bash
# compare_reference_test.sh SOURCE_DIR MLHARNESS WORK_DIR: every reference/*.py parses, and
# launch/compare_reference.sh --workload ncf --quick prints both rates (positive numbers) and their
# ratio, writes its JSON, and refuses bad input with exit 2 and a message naming the fix.
# Needs Debian's python3-torch (/usr/bin/python3 importing torch).
set -euo pipefail
source_dir=$1
mlharness=$2
work=$3
rm -rf "$work"
mkdir -p "$work"

fail() {
  echo "FAIL: $*" >&2
  exit 1
}

# Parse every loop, its bytecode kept out of the source tree.
PYTHONPYCACHEPREFIX=$work/pycache /usr/bin/python3 -m py_compile "$source_dir"/reference/*.py ||
  fail "a reference/*.py does not parse"

compare=$source_dir/launch/compare_reference.sh
out=$work/ncf.txt
status=0
bash "$compare" --workload ncf --quick --mlharness "$mlharness" --json "$work/ncf.json" >"$out" 2>&1 || status=$?
[ "$status" = 0 ] || { cat "$out" >&2; fail "compare_reference.sh --workload ncf --quick exited $status"; }
cat "$out"
number='[0-9][0-9,]*\.[0-9]'
grep -Eq "^  mlharness +$number samples/s" "$out" || fail "no mlharness rate in samples/s"
grep -Eq "^  reference +$number samples/s" "$out" || fail "no reference rate in samples/s"
grep -Eq "^  ratio +[0-9]+\.[0-9]+ +\(mlharness / reference\)" "$out" || fail "no ratio"
grep -q "^machine: .*cores" "$out" || fail "no machine line"
grep -q "under /usr/bin/python3" "$out" || fail "the Python used is not named"
/usr/bin/python3 - "$work/ncf.json" <<'EOF' || fail "the JSON lacks positive rates"
import json, sys
result = json.load(open(sys.argv[1]))
assert result["mlharness_per_second"] > 0 and result["reference_per_second"] > 0, result
assert result["unit"] == "samples" and result["workload"] == "ncf", result
EOF

# quick_settings (checks.json): none for NCF; an unknown workload refused.
[ -z "$(python3 "$source_dir/launch/workload_checks.py" quick-settings ncf)" ] || fail "ncf has quick_settings"
status=0
python3 "$source_dir/launch/workload_checks.py" quick-settings bert 2>/dev/null || status=$?
[ "$status" = 2 ] || fail "workload_checks.py quick-settings bert exited $status, not 2"

# Bad input: exit 2, one line that says what to do.
expect_error() {
  local pattern=$1 status=0
  shift
  bash "$compare" "$@" >"$work/error.txt" 2>&1 || status=$?
  [ "$status" = 2 ] || fail "'$*' exited $status, not 2"
  grep -q "$pattern" "$work/error.txt" || fail "'$*' said: $(cat "$work/error.txt")"
}
expect_error "unknown workload 'bert'" --workload bert --mlharness "$mlharness"
expect_error "mlharness is not built" --workload ncf --mlharness "$work/no-such-binary"
printf '#!/bin/sh\nexit 1\n' >"$work/python-without-torch"
chmod +x "$work/python-without-torch"
expect_error "apt-get install -y --no-install-recommends python3-torch" --workload ncf --mlharness "$mlharness" \
  --python "$work/python-without-torch"
expect_error "takes no --channels-last" --workload ncf --channels-last --mlharness "$mlharness"
expect_error "has no loader reference" --workload ncf --loader --mlharness "$mlharness"
echo "PASS"
