#!/usr/bin/env bash
# README's "Compare two machines", tried as a new user would: the commands of its block marked
# "run as is" are taken from README.md as written and run in an empty folder beside this checkout's
# launch/ and build/; the report must hold what the section promises: per device count the time,
# cost and samples per dollar, the two-rank run's speedup and cost ratio against the one-rank
# baseline, and the prices used.
set -uo pipefail
root=$(realpath "${1:?the repository root}")
binary=$(realpath "${2:?the mlharness binary}")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
check() {  # check NAME COMMAND...
  local name=$1; shift
  if "$@"; then echo "ok: $name"; else echo "FAIL: $name"; failures=$((failures + 1)); fi
}

# The section's second code block: the lines after "run as is):" up to the next unindented line.
awk '/^## Compare two machines/ {in_section = 1; next}
     /^## / {in_section = 0}
     in_section && /run as is\):/ {in_block = 1; next}
     in_block && /^    / {sub(/^    /, ""); print; next}
     in_block && /^[^ ]/ {exit}' "$root/README.md" >"$work/commands.sh"
echo "== the README's commands =="
cat "$work/commands.sh"
check "README has the block" [ "$(grep -c . "$work/commands.sh")" -ge 3 ]

ln -s "$root/launch" "$work/launch"
mkdir -p "$work/build/launch" && ln -s "$binary" "$work/build/launch/mlharness"
(cd "$work" && bash -e commands.sh) >"$work/console.txt" 2>&1
status=$?
tail -n 20 "$work/console.txt"
check "the commands exit 0" [ "$status" = 0 ]
# Runs write results/ and their generated datasets data/ (both ignored by git), nothing else.
written_elsewhere=$(cd "$work" && ls -A | grep -vx -e commands.sh -e console.txt -e launch -e build -e results -e data | tr '\n' ' ')
echo "written beside results/ and data/: ${written_elsewhere:-nothing}"
check "nothing written beside the clone's launch/ and build/ but results/ and data/" test -z "$written_elsewhere"

report="$work/results/report/report.md"
check "report.md written" [ -f "$report" ]
platform=$(ls "$work/results/compare" | sed -n 's/^1x//p')
check "one folder per rank count" test -d "$work/results/compare/1x$platform" -a -d "$work/results/compare/2x$platform"
check "summary has cost and samples per dollar" grep -qF 'Cost to train ($) | Samples per dollar' "$report"
check "prices used are printed" grep -qF "Prices used: $platform \$0.05/device-h" "$report"
check "the baseline is the one-rank system" grep -q "baseline 1x$platform (given with --baseline)" "$report"
# comparison.csv: the two-rank row against the one-rank baseline, with a speedup and a cost ratio.
comparison="$work/results/report/comparison.csv"
header=$(head -1 "$comparison")
column() { tr ',' '\n' <<<"$header" | grep -nx "$1" | cut -d: -f1; }
row=$(awk -F, -v d="$(column devices)" -v b="$(column baseline_devices)" 'NR > 1 && $d == 2 && $b == 1' "$comparison")
check "comparison.csv has 2 CPU ranks against 1" [ -n "$row" ]
speedup=$(cut -d, -f"$(column speedup)" <<<"$row")
cost_ratio=$(cut -d, -f"$(column cost_ratio)" <<<"$row")
echo "speedup $speedup, cost ratio $cost_ratio"
check "a positive speedup" awk -v x="$speedup" 'BEGIN { exit !(x + 0 > 0) }'
check "a positive cost ratio" awk -v x="$cost_ratio" 'BEGIN { exit !(x + 0 > 0) }'
check "device kind is cpu" grep -q ",cpu," <<<"$row"
check "CPU runs have no energy columns" bash -c "! grep -q energy_joules '$work/results/report/summary.csv'"

[ "$failures" = 0 ] && echo "buyer_check: all passed" || { echo "buyer_check: $failures failed"; exit 1; }
