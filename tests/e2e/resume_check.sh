#!/usr/bin/env bash
# resume_check.sh OUT_DIR EPOCH COMMAND...: checkpoints resume bitwise. COMMAND is an mlharness run
# (plain or under mpirun) cut to a few epochs. Run A goes to its end with a checkpoint after every
# epoch; run B resumes from A's checkpoint after EPOCH, as a run interrupted there would. Then:
#  - B's last checkpoint holds, rank for rank, byte for byte A's: weights, optimizer, loss scaler,
#    counters and random streams;
#  - B's evaluations after EPOCH log the same values as A's, and B's record keeps A's earlier ones;
#  - every rank left its own state file (as many as COMMAND's `-np`, 1 without one);
#  - B's log says where it resumed from, `mlharness check` refuses it as a compliant run, and
#    `mlharness score` counts it as not converged, saying why.
set -uo pipefail
out=$1 epoch=$2
shift 2
binary="" expected_ranks=1 previous=""
for word in "$@"; do
  case $word in */mlharness) binary=$word ;; esac
  [ "$previous" != -np ] || expected_ranks=$word
  previous=$word
done
fail() {
  echo "resume_check: FAIL: $*" >&2
  exit 1
}
rm -rf "$out"
mkdir -p "$out"
common=(--data-dir "$out/data" --quiet --platform cpu --checkpoint-every 1 --keep-checkpoints 100)

"$@" "${common[@]}" --out "$out/a" >"$out/a.txt" 2>&1
status=$?
[ "$status" = 0 ] || [ "$status" = 1 ] || { cat "$out/a.txt"; fail "run A exited $status"; }
checkpoints=$(echo "$out"/a/cpu/*/result_0.checkpoints)
[ -d "$checkpoints/$(printf 'epoch_%04d' "$epoch")" ] || fail "run A left no checkpoint after epoch $epoch in $checkpoints"
last=$(ls "$checkpoints" | grep -E '^epoch_[0-9]+$' | sort | tail -1)
[ "$last" != "$(printf 'epoch_%04d' "$epoch")" ] || fail "run A ended at epoch $epoch: nothing left to resume"

"$@" "${common[@]}" --out "$out/b" --resume "$checkpoints/$(printf 'epoch_%04d' "$epoch")" >"$out/b.txt" 2>&1
status=$?
[ "$status" = 0 ] || [ "$status" = 1 ] || { cat "$out/b.txt"; fail "run B (resumed) exited $status"; }
resumed=$(echo "$out"/b/cpu/*/result_0.checkpoints)
[ -f "$resumed/$last/manifest.json" ] || fail "run B wrote no $last checkpoint"

ranks=0
for state in "$checkpoints/$last"/rank_*.state; do
  cmp "$state" "$resumed/$last/$(basename "$state")" || fail "$last/$(basename "$state") differs between A and B"
  ranks=$((ranks + 1))
done
[ "$ranks" = "$expected_ranks" ] || fail "$last holds $ranks rank state file(s), not $expected_ranks (one per rank)"
echo "resume_check: $last: $ranks rank state(s) bitwise equal"

# eval_accuracy values after EPOCH, one "epoch value" line each.
evals_after() {
  grep '"key": "eval_accuracy"' "$1" | sed -E 's/.*"value": (.*), "metadata": \{.*"epoch_num": ([0-9]+).*/\2 \1/' |
    awk -v k="$epoch" '$1 > k'
}
log_a=$(echo "$out"/a/cpu/*/result_0.txt) log_b=$(echo "$out"/b/cpu/*/result_0.txt)
[ -n "$(evals_after "$log_a")" ] || fail "run A logged no evaluation after epoch $epoch"
diff <(evals_after "$log_a") <(evals_after "$log_b") || fail "evaluations after epoch $epoch differ"
echo "resume_check: evaluations after epoch $epoch equal: $(evals_after "$log_b" | tr '\n' ' ')"
grep -qE '"key": "mlharness_resumed_from", "value": \{.*"epoch": '"$epoch"'[,}]' "$log_b" ||
  fail "run B's log does not say it resumed after epoch $epoch"
grep -q '"resumed_from"' "${log_b%.txt}.json" || fail "run B's record does not say it resumed"
if [ -n "$binary" ]; then
  "$binary" check "$log_b" >"$out/check.txt" 2>&1 && fail "mlharness check passed a resumed log"
  grep -q "resumed" "$out/check.txt" || { cat "$out/check.txt"; fail "mlharness check did not say why"; }
  "$binary" score "$out/b" >"$out/score.txt" 2>&1
  cat "$out/score.txt"
  grep -qE "^  [-0-9]+ +no .*\(resumed from a checkpoint after epoch $epoch .*not a compliant result\)" "$out/score.txt" ||
    fail "mlharness score did not leave the resumed run out, saying why"
fi
echo "resume_check: PASS"
