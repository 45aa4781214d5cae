#!/usr/bin/env bash
# sweep_test.sh SWEEP_SH MLHARNESS WORK_DIR: launch/sweep.sh on a tiny NCF mini (one epoch on a small
# synthetic MovieLens): the ledger and result logs of a 2-seed x np 1,2 sweep with a converged, a not
# converged and a crashed run; a rerun that runs nothing; a resume that runs only the run missing from
# the ledger; Ctrl-C in the middle of a run; a second sweep on the same folder while one runs; bad input.
set -euo pipefail
sweep=$1
real_mlharness=$2
work=$3
rm -rf "$work"
mkdir -p "$work"
out=$work/out
calls=$work/calls.txt
touch "$calls"

fail() {
  echo "FAIL: $*" >&2
  exit 1
}

# The real mlharness, with outcomes that depend on the run: np 1 seed 1 gets a target it reaches in
# its one epoch; np 2 seed 2 crashes (SIGSEGV) after leaving a partial log, as a killed run does.
fake=$work/mlharness
cat >"$fake" <<EOF
#!/usr/bin/env bash
case " \$* " in *" --help "*) exec "$real_mlharness" "\$@" ;; esac
seed="" results="" previous=""
for arg in "\$@"; do
  case \$previous in --seed) seed=\$arg ;; --out) results=\$arg ;; esac
  previous=\$arg
done
[ "\${OMPI_COMM_WORLD_RANK:-0}" != 0 ] || echo "np \$OMPI_COMM_WORLD_SIZE seed \$seed" >>"$calls"
case \$OMPI_COMM_WORLD_SIZE:\$seed in
  1:1) exec "$real_mlharness" "\$@" --set target_hit_rate=0.3 ;;
  2:2)
    mkdir -p "\$results/2xsweep-test/ncf"
    : >"\$results/2xsweep-test/ncf/result_7.txt.partial"
    kill -SEGV \$\$ ;;
esac
exec "$real_mlharness" "\$@"
EOF
chmod +x "$fake"

tiny=(--set synthetic_users=200 --set synthetic_items=100 --set synthetic_mean_ratings_per_user=25
  --set eval_negatives=49 --set max_epochs=1 --quiet)
sweep_command=(bash "$sweep" --workload ncf --config mini --seeds 1-2 --np "1,2" --out "$out" --data-dir "$work/data"
  --platform sweep-test --mlharness "$fake" -- "${tiny[@]}")
ledger=$out/sweep.tsv

# The ledger's line for "np seed", without its wall seconds (which differ between runs).
ledger_fields() { awk -F'\t' -v np="$1" -v seed="$2" '$1 == np && $2 == seed { print $3, $4, $5 }' "$ledger"; }
result_files() { find "$out" -name 'result_*' -type f | sort; }

echo "== a sweep of 4 runs"
status=0
"${sweep_command[@]}" >"$work/first.txt" 2>&1 || status=$?
cat "$work/first.txt"
[ "$status" = 1 ] || fail "a sweep with a failed run exits 1, got $status"
[ "$(wc -l <"$calls")" = 4 ] || fail "4 runs expected, mlharness ran $(wc -l <"$calls") times"
[ "$(head -1 "$ledger")" = "$(printf 'np\tseed\texit_status\tconverged\tresult_log\twall_seconds\tcommand')" ] ||
  fail "ledger header: $(head -1 "$ledger")"
[ "$(wc -l <"$ledger")" = 5 ] || fail "header and 4 lines expected in the ledger"
[ "$(ledger_fields 1 1)" = "0 yes $out/1xsweep-test/ncf/result_0.txt" ] || fail "np 1 seed 1: $(ledger_fields 1 1)"
[ "$(ledger_fields 1 2)" = "1 no $out/1xsweep-test/ncf/result_1.txt" ] || fail "np 1 seed 2: $(ledger_fields 1 2)"
[ "$(ledger_fields 2 1)" = "1 no $out/2xsweep-test/ncf/result_0.txt" ] || fail "np 2 seed 1: $(ledger_fields 2 1)"
read -r crash_status crash_outcome crash_log <<<"$(ledger_fields 2 2)"
{ [ "$crash_status" -ge 2 ] && [ "$crash_outcome" = failed ] && [ "$crash_log" = - ]; } ||
  fail "np 2 seed 2 crashed: $(ledger_fields 2 2)"
grep -q $'\t'"mpirun .*--oversubscribe -np 2 $fake --workload ncf --seed 1 --out $out " "$ledger" ||
  fail "the ledger records each run's command"
for log in "$out/1xsweep-test/ncf/result_0.txt" "$out/1xsweep-test/ncf/result_1.txt" "$out/2xsweep-test/ncf/result_0.txt"; do
  grep -q ':::MLLOG.*"key": "run_stop"' "$log" || fail "$log is not a finished MLPerf log"
  [ -f "${log%.txt}.json" ] || fail "no record beside $log"
done
grep -q '"seed": "2"' "$out/1xsweep-test/ncf/result_1.json" || fail "np 1 seed 2's record is not seed 2's"
[ -z "$(find "$out" -name '*.partial')" ] || fail "the crashed run's partial log was left"
grep -q '^\[1/4\] np 1 seed 1 \.\.\. converged in 1 epochs, ' "$work/first.txt" || fail "progress line of a converged run"
grep -q '^\[4/4\] np 2 seed 2 \.\.\. FAILED (exit ' "$work/first.txt" || fail "progress line of a failed run"
grep -q '^sweep: 4 runs (0 already in the ledger): 1 converged, 2 not converged, 1 failed' "$work/first.txt" ||
  fail "summary line"

echo "== the same command again: nothing runs"
cp "$ledger" "$work/ledger_before.tsv"
result_files >"$work/results_before.txt"
status=0
"${sweep_command[@]}" >"$work/again.txt" 2>&1 || status=$?
cat "$work/again.txt"
[ "$status" = 1 ] || fail "the rerun reports the recorded failure (exit 1), got $status"
[ "$(wc -l <"$calls")" = 4 ] || fail "the rerun ran mlharness again"
[ "$(grep -c 'in the ledger.*skipped' "$work/again.txt")" = 4 ] || fail "the rerun says each run is skipped"
cmp -s "$ledger" "$work/ledger_before.tsv" || fail "the rerun changed the ledger"
result_files | cmp -s - "$work/results_before.txt" || fail "the rerun changed the results"

echo "== np 2 seed 1 lost from the ledger (its results deleted, a killed run's partial log left): only it runs"
grep -v $'^2\t1\t' "$work/ledger_before.tsv" >"$ledger"
rm "$out/2xsweep-test/ncf/result_0.txt" "$out/2xsweep-test/ncf/result_0.json"
: >"$out/2xsweep-test/ncf/result_3.txt.partial"
status=0
"${sweep_command[@]}" >"$work/resume.txt" 2>&1 || status=$?
cat "$work/resume.txt"
[ "$status" = 1 ] || fail "the resumed sweep exits 1 (the recorded failure), got $status"
{ [ "$(tail -1 "$calls")" = "np 2 seed 1" ] && [ "$(wc -l <"$calls")" = 5 ]; } || fail "exactly np 2 seed 1 runs again"
[ "$(grep -c 'skipped' "$work/resume.txt")" = 3 ] || fail "3 runs skipped on resume"
grep -q "removed $out/2xsweep-test/ncf/result_3.txt.partial" "$work/resume.txt" || fail "the stale partial is removed"
[ -z "$(find "$out" -name '*.partial')" ] || fail "a partial log was left"
[ "$(wc -l <"$ledger")" = 5 ] || fail "the ledger has 4 runs again"
read -r rerun_status rerun_outcome rerun_log <<<"$(ledger_fields 2 1)"
{ [ "$rerun_status $rerun_outcome" = "1 no" ] && [ -f "$rerun_log" ]; } || fail "np 2 seed 1 again: $(ledger_fields 2 1)"

echo "== bad input"
for bad in "--seeds x" "--seeds 3-1" "--np 1,0" "--bogus 1"; do
  status=0
  # shellcheck disable=SC2086  # the words of each case
  bash "$sweep" --workload ncf --config mini --seeds 1 --out "$work/bad" $bad >"$work/bad.txt" 2>&1 || status=$?
  { [ "$status" = 2 ] && [ "$(wc -l <"$work/bad.txt")" = 1 ]; } || fail "$bad: exit $status, $(cat "$work/bad.txt")"
  grep -q '^sweep.sh: error: ' "$work/bad.txt" || fail "$bad: $(cat "$work/bad.txt")"
done
[ ! -e "$work/bad" ] || fail "bad input left a results folder"
status=0
bash "$sweep" --seeds 1 --out "$work/bad" >/dev/null 2>&1 || status=$?
[ "$status" = 2 ] || fail "no --workload: exit $status"
status=0
"${sweep_command[@]}" --set mf_dim=8 >"$work/mismatch.txt" 2>&1 || status=$?
{ [ "$status" = 2 ] && grep -q 'records np 1 seed 1 with another command' "$work/mismatch.txt"; } ||
  fail "other options on the same --out: exit $status, $(cat "$work/mismatch.txt")"

echo "== Ctrl-C during a run"
interrupted_out=$work/interrupted
set -m  # the sweep in its own process group, as a terminal's Ctrl-C reaches one
bash "$sweep" --workload ncf --config mini --seeds 5 --out "$interrupted_out" --data-dir "$work/data" \
  --mlharness "$real_mlharness" -- --set synthetic_users=1000 --quiet >"$work/interrupted.txt" 2>&1 &
sweep_pid=$!
set +m
for _ in $(seq 600); do
  [ -z "$(find "$interrupted_out" -name 'result_*.partial' 2>/dev/null)" ] || break
  sleep 0.1
done
[ -n "$(find "$interrupted_out" -name 'result_*.partial')" ] || fail "the run never started its log"
echo "== a second sweep into the folder of the running one: refused"
status=0
bash "$sweep" --workload ncf --config mini --seeds 6 --out "$interrupted_out" --data-dir "$work/data" \
  --mlharness "$real_mlharness" -- --set synthetic_users=1000 --quiet >"$work/second.txt" 2>&1 || status=$?
cat "$work/second.txt"
{ [ "$status" = 2 ] && grep -q "^sweep.sh: error: another sweep is running on '$interrupted_out'" "$work/second.txt"; } ||
  fail "a second sweep on a running sweep's folder: exit $status"
[ ! -e "$interrupted_out/console/np1_seed6.txt" ] || fail "the refused sweep started a run"
kill -INT -- -"$sweep_pid"
status=0
wait "$sweep_pid" || status=$?
cat "$work/interrupted.txt"
[ "$status" = 130 ] || fail "Ctrl-C: exit $status"
[ -z "$(find "$interrupted_out" -name 'result_*')" ] || fail "the interrupted run left $(find "$interrupted_out" -name 'result_*')"
[ "$(wc -l <"$interrupted_out/sweep.tsv")" = 1 ] || fail "the interrupted run has a ledger line"
grep -q '^\[1/1\] np 1 seed 5 \.\.\. interrupted' "$work/interrupted.txt" || fail "Ctrl-C is reported"
echo "PASS"
