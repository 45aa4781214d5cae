#!/usr/bin/env bash
# Compares `mlharness check` with today's official MLPerf compliance checker (the mlperf-logging
# package) log by log, on every result_*.txt of the published v0.6 and v0.7 training results.
# A tool for people, not a test: it needs the extracted result trees and a venv with mlperf-logging.
#
#   python3 -m venv /root/.cache/mlharness/mlperf-logging
#   /root/.cache/mlharness/mlperf-logging/bin/pip install mlperf-logging
#   tools/compare_official_checker.sh [--rounds DIR] [--venv DIR] [--mlharness BIN] [--out DIR] [--jobs N]
#
# Defaults: --rounds /work/rounds (holding v0.6/ and v0.7/, as mlcommons/training_results_v0.6 and
# v0.7), --venv /root/.cache/mlharness/mlperf-logging, --mlharness build/launch/mlharness,
# --out /tmp/mlh-official-compare, --jobs 2.
# The official checker runs with `--usage training --ruleset 0.6.0` on v0.6 logs and 0.7.0 on v0.7
# logs; its verdict is PASS (exit 0), FAIL (exit 1 and "FAILED") or CRASH (a Python traceback).
# Its verdicts are cached in OUT/official.tsv (delete the file to recompute them).
# mlharness runs `check --ruleset` with the same rule set; its verdict is PASS, FAIL or, where our
# rule set has no rules for the benchmark (minigo, bert, dlrm...), NOT_CHECKED when nothing else failed.
# Prints counts per round and verdict pair, then every log where the two disagree, with our first
# failure. Exit 0 when they agree on every log that both check, 1 otherwise.
set -euo pipefail

rounds=/work/rounds
venv=/root/.cache/mlharness/mlperf-logging
repo=$(cd "$(dirname "$0")/.." && pwd)
mlharness=$repo/build/launch/mlharness
out=/tmp/mlh-official-compare
jobs=2
while [[ $# -gt 0 ]]; do
  case $1 in
    --rounds) rounds=$2; shift 2 ;;
    --venv) venv=$2; shift 2 ;;
    --mlharness) mlharness=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --jobs) jobs=$2; shift 2 ;;
    -h|--help) sed -n '2,20p' "$0"; exit 0 ;;
    *) echo "compare_official_checker.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done
for need in "$rounds/v0.6" "$rounds/v0.7"; do
  [[ -d $need ]] || { echo "compare_official_checker.sh: no folder $need (--rounds)" >&2; exit 2; }
done
[[ -x $venv/bin/python ]] || { echo "compare_official_checker.sh: no venv at $venv (--venv; see --help)" >&2; exit 2; }
[[ -x $mlharness ]] || { echo "compare_official_checker.sh: no mlharness binary at $mlharness (--mlharness)" >&2; exit 2; }
rounds=$(cd "$rounds" && pwd)
mkdir -p "$out"
out=$(cd "$out" && pwd)

ruleset_of() { case $1 in v0.6/*) echo 0.6.0 ;; v0.7/*) echo 0.7.0 ;; esac; }

# Every log, relative to the rounds folder, sorted.
(cd "$rounds" && find v0.6 v0.7 -name 'result_*.txt' -type f | LC_ALL=C sort) > "$out/logs.txt"

# The official checker writes compliance_checker.log into its working folder: run it in a scratch
# folder per log, never in the result trees.
official_one() {
  local log=$1 ruleset scratch output status verdict
  ruleset=$(ruleset_of "$log")
  scratch=$(mktemp -d "$out/scratch.XXXXXX")
  status=0
  output=$(cd "$scratch" && nice "$venv/bin/python" -m mlperf_logging.compliance_checker --usage training \
             --ruleset "$ruleset" "$rounds/$log" 2>&1) || status=$?
  rm -rf "$scratch"
  if grep -q '^Traceback' <<<"$output"; then
    verdict=CRASH
  elif [[ $status -eq 0 ]] && grep -q 'SUCCESS' <<<"$output"; then
    verdict=PASS
  else
    verdict=FAIL
  fi
  # Its reason, on one line: a crash's exception, else the first complaint and the line it is about.
  local reason
  if [[ $verdict == CRASH ]]; then
    reason=$(grep -E '^[A-Za-z.]*(Error|Exception)' <<<"$output" | tail -1)
  else
    reason=$(grep -E 'WARNING -|failed test|^:::MLL|^[A-Za-z.]*(Error|Exception)' <<<"$output" | head -2 | paste -sd'|')
  fi
  reason=$(tr '\t' ' ' <<<"$reason" | cut -c1-240)
  printf '%s\t%s\t%s\n' "$log" "$verdict" "$reason"
}
export -f official_one ruleset_of
export rounds venv out

if [[ ! -s $out/official.tsv ]]; then
  echo "running the official checker on $(wc -l < "$out/logs.txt") logs, $jobs at a time..." >&2
  xargs -a "$out/logs.txt" -d '\n' -P "$jobs" -I{} bash -c 'official_one "$1"' _ {} > "$out/official.tsv.part"
  LC_ALL=C sort "$out/official.tsv.part" > "$out/official.tsv"
  rm -f "$out/official.tsv.part"
fi

# Ours: one mlharness call per round (it prints PASS/FAIL per path, failures indented below).
: > "$out/ours.tsv"
for round in v0.6 v0.7; do
  grep "^$round/" "$out/logs.txt" > "$out/logs_$round.txt" || continue
  (cd "$rounds" && xargs -a "$out/logs_$round.txt" -d '\n' nice "$mlharness" check --ruleset "$(ruleset_of $round/)" \
     > "$out/ours_$round.out" || true)
  awk -v OFS='\t' '
    function flush() { if (path != "") print path, (verdict == "PASS" && not_checked ? "NOT_CHECKED" : verdict), first }
    /^(PASS|FAIL) / { flush(); verdict = $1; path = substr($0, 6); first = ""; not_checked = 0; next }
    /^ERROR / { flush(); path = ""; split(substr($0, 7), parts, ": "); print parts[1], "ERROR", substr($0, 7); next }
    /^  not checked: / { not_checked = 1; if (first == "") first = substr($0, 3); next }
    /^  warning: / { next }
    /^  / { if (first == "" || first ~ /^not checked/) first = substr($0, 3); next }
    END { flush() }' "$out/ours_$round.out" >> "$out/ours.tsv"
done
LC_ALL=C sort -o "$out/ours.tsv" "$out/ours.tsv"

# Join and count.
join -t $'\t' -j1 <(cut -f1,2,3 "$out/official.tsv") <(cut -f1,2,3 "$out/ours.tsv") > "$out/joined.tsv"
echo "logs: $(wc -l < "$out/logs.txt"), official verdicts: $(wc -l < "$out/official.tsv"), ours: $(wc -l < "$out/ours.tsv")"
echo
echo "count  round  official  mlharness"
awk -F'\t' '{ split($1, p, "/"); print p[1] "\t" $2 "\t" $4 }' "$out/joined.tsv" | sort | uniq -c |
  awk '{ printf "%5d  %-5s  %-8s  %s\n", $1, $2, $3, $4 }'
echo
echo "by submitter and benchmark folder (official / ours):"
awk -F'\t' '{ n = split($1, p, "/"); print p[1] "/" p[2] "/" p[n-1] "\t" $2 "/" $4 }' "$out/joined.tsv" | sort | uniq -c |
  awk '{ printf "%5d  %-32s %s\n", $1, $2, $3 }'
echo
# A disagreement: one passes and the other fails (a crash counts as a failure, as the official
# tool reports no success). NOT_CHECKED is compared with nothing: we have no rules to compare.
awk -F'\t' '
  { official = ($2 == "PASS") ? "pass" : "fail"; ours = ($4 == "PASS") ? "pass" : ($4 == "NOT_CHECKED") ? "" : "fail" }
  ours != "" && official != ours { print $1 "\n    official " $2 ": " $3 "\n    mlharness " $4 ": " $5; bad++ }
  END { print (bad + 0) " disagreements"; exit(bad > 0) }' "$out/joined.tsv"
