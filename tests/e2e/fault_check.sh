#!/usr/bin/env bash
# fault_check.sh CASE MLHARNESS WORK_DIR [SWEEP_SCRIPT]: a run meets a fault and loses nothing but
# the epoch in progress. Each CASE runs the NCF mini (tiny: a few seconds an epoch):
#   sigterm      SIGTERM to a one-rank run after its first checkpoint: it stops within seconds, exit
#                143, its log ends with run_stop aborted and the reason, its record says interrupted,
#                and --resume from its checkpoints then runs to the end.
#   sigint       Ctrl-C (SIGINT) to a one-rank run: exit 130, run_stop aborted "interrupted by SIGINT",
#                the record interrupted.
#   sigint_mpi   Ctrl-C (SIGINT) to `mpirun -np 2`: Open MPI's mpirun turns it into SIGTERM to its ranks
#                (they never see the SIGINT), so the log says SIGTERM and the exit status is mpirun's
#                (non-zero); both ranks stop after the same step, the log is finished (run_stop aborted,
#                interrupted) and no process is left.
#   kill9_sweep  kill -9 of rank 1 mid-epoch under `mpirun -np 2`, inside launch/sweep.sh: the job ends
#                within 30 s with no process left, no result that looks whole, and the sweep records
#                the run as failed and goes on to the next seed.
#   nonfinite    a learning rate that makes the loss overflow: run_stop aborted with the reason, exit 1.
#   disk_full    a file-size limit (ulimit -f) below a checkpoint's size: a one-line error, exit 2; the
#                earlier checkpoints and results byte for byte as they were, nothing half-written left.
#                Then a damaged newest checkpoint: refused with its reason, the one before it resumed.
#   disk_full_tmpfs  a real full filesystem (ENOSPC): the results folder on a tmpfs (mounted by the test
#                in a mount namespace of its own, so it needs root or user namespaces; skipped, exit 77,
#                where neither works) with room for less than one more checkpoint: a one-line error
#                "No space left on device", exit 2, the earlier checkpoints byte for byte, nothing
#                half-written left, and a checkpoint kept there resumes.
set -uo pipefail
case_name=$1 binary=$2 work=$3 sweep=${4:-}
mpirun_cmd=(mpirun --allow-run-as-root --oversubscribe)
rm -rf "$work"
mkdir -p "$work"
cd "$work" || exit 1
fail() {
  echo "fault_check $case_name: FAIL: $*" >&2
  exit 1
}
# Small enough that an epoch takes a second or two, big enough that a step can be caught mid-epoch.
tiny_settings=(--set synthetic_users=1500 --set synthetic_items=800 --set global_batch_size=1024 --set gradient_shards=2)
tiny=(--workload ncf --config mini --platform cpu --data-dir "$work/data" "${tiny_settings[@]}")

# Waits up to $2 seconds for a file matching the glob $1; true when it appeared.
wait_for() {
  local deadline=$((SECONDS + $2))
  while [ $SECONDS -lt "$deadline" ]; do
    compgen -G "$1" >/dev/null && return 0
    sleep 0.2
  done
  return 1
}
# Waits up to $3 seconds for a line matching $1 (grep) in the file $2; true when it appeared.
wait_for_line() {
  local deadline=$((SECONDS + $3))
  while [ $SECONDS -lt "$deadline" ]; do
    grep -q -- "$1" "$2" 2>/dev/null && return 0
    sleep 0.2
  done
  return 1
}
run_stop_of() { grep '"key": "run_stop"' "$1"; }
# After a signal to the run $1 (pid) in $work/a: it stopped within 10 s with exit status $2, its log
# finished with run_stop aborted "interrupted by $3 in epoch ..." and its record says interrupted.
expect_stopped_by() {
  local pid=$1 expected_status=$2 signal_name=$3 signalled=$SECONDS status=0
  wait "$pid" || status=$?
  [ $((SECONDS - signalled)) -le 10 ] || fail "the run took $((SECONDS - signalled)) s to stop"
  [ "$status" = "$expected_status" ] || { cat run.txt; fail "exit $status, not $expected_status"; }
  log=$work/a/cpu/ncf/result_0.txt
  [ -f "$log" ] || fail "no finished log (result_0.txt)"
  run_stop_of "$log" | grep -q '"key": "run_stop".*"status": "aborted", "reason": "interrupted by '"$signal_name"' in epoch' ||
    fail "the log does not end with run_stop aborted by $signal_name: $(run_stop_of "$log")"
  grep -q '"status": "interrupted"' "$work/a/cpu/ncf/result_0.json" || fail "the record does not say interrupted"
}
left_over_processes() { pgrep -f -- "--out $work/" || true; }

case $case_name in
sigterm)
  "$binary" "${tiny[@]}" --seed 1 --set max_epochs=40 --set target_hit_rate=0.999 --checkpoint-every 1 \
    --out "$work/a" >run.txt 2>&1 &
  pid=$!
  wait_for "$work/a/cpu/ncf/result_0.checkpoints/epoch_0001" 180 || fail "no checkpoint after epoch 1"
  sleep 0.5
  kill -TERM "$pid"
  expect_stopped_by "$pid" 143 SIGTERM
  grep -q 'resume with --resume' run.txt || fail "the console does not say how to resume"
  "$binary" "${tiny[@]}" --seed 1 --set max_epochs=40 --set target_hit_rate=0.999 \
    --resume "$work/a/cpu/ncf/result_0.checkpoints" --out "$work/b" --checkpoint-every 1 >resumed.txt 2>&1 &
  pid=$!
  # The resumed run stops the same way; what counts here is that it started from the checkpoint.
  wait_for "$work/b/cpu/ncf/result_0.checkpoints/epoch_*" 180 || { cat resumed.txt; fail "the resumed run wrote no checkpoint"; }
  kill -TERM "$pid"
  wait "$pid"
  grep -q '"key": "mlharness_resumed_from"' "$work/b/cpu/ncf/result_0.txt" || fail "the resumed log does not say so"
  ;;
sigint)
  set -m  # the run in its own process group, as a terminal's Ctrl-C reaches one
  "$binary" "${tiny[@]}" --seed 5 --set max_epochs=400 --set target_hit_rate=0.999 --out "$work/a" >run.txt 2>&1 &
  pid=$!
  set +m
  wait_for_line '"epoch_num": 2' "$work/a/cpu/ncf/result_0.txt.partial" 180 || { cat run.txt; fail "the run did not reach epoch 2"; }
  kill -INT -- -"$pid"
  expect_stopped_by "$pid" 130 SIGINT
  grep -q '"interrupt_signal": 2' "$work/a/cpu/ncf/result_0.json" || fail "the record does not name SIGINT"
  ;;
sigint_mpi)
  set -m  # mpirun in its own process group, as a terminal's Ctrl-C reaches one
  "${mpirun_cmd[@]}" -np 2 "$binary" "${tiny[@]}" --seed 2 --set max_epochs=400 --set target_hit_rate=0.999 \
    --out "$work/a" >run.txt 2>&1 &
  pid=$!
  set +m
  wait_for_line '"epoch_num": 2' "$work/a/cpu/ncf/result_0.txt.partial" 180 || { cat run.txt; fail "the run did not reach epoch 2"; }
  kill -INT -- -"$pid"
  signalled=$SECONDS
  status=0
  wait "$pid" || status=$?
  [ $((SECONDS - signalled)) -le 15 ] || fail "the job took $((SECONDS - signalled)) s to stop"
  [ "$status" != 0 ] || fail "exit 0 after Ctrl-C"
  sleep 1
  [ -z "$(left_over_processes)" ] || fail "processes left: $(left_over_processes)"
  log=$work/a/cpu/ncf/result_0.txt
  [ -f "$log" ] || { cat run.txt; fail "no finished log"; }
  # Open MPI's mpirun answers Ctrl-C by sending its ranks SIGTERM: that is what they can report.
  run_stop_of "$log" | grep -q '"status": "aborted", "reason": "interrupted by SIGTERM in epoch' ||
    fail "the log does not end with run_stop aborted by the SIGTERM mpirun sends: $(run_stop_of "$log")"
  grep -q '"status": "interrupted"' "$work/a/cpu/ncf/result_0.json" || fail "the record does not say interrupted"
  ;;
kill9_sweep)
  [ -n "$sweep" ] || fail "needs launch/sweep.sh"
  # Rank 1 of seed 1 is killed (SIGKILL) once its rank 0 logs the second epoch's start.
  wrapper=$work/mlharness
  cat >"$wrapper" <<EOF
#!/usr/bin/env bash
for word in "\$@"; do [ "\$prev" = --seed ] && seed=\$word; [ "\$prev" = --out ] && out=\$word; prev=\$word; done
if [ "\$seed" = 1 ] && [ "\$OMPI_COMM_WORLD_RANK" = 1 ]; then
  ( while ! grep -qs '"epoch_num": 2' "\$out"/*/ncf/result_*.txt.partial; do sleep 0.05; done
    sleep 0.3; date +%s.%N >"$work/killed_at"; kill -9 \$\$ ) &
fi
exec "$binary" "\$@"
EOF
  chmod +x "$wrapper"
  bash "$sweep" --workload ncf --config mini --seeds 1,2 --np 2 --out "$work/sweep" --platform cpu --data-dir "$work/data" \
    --mlharness "$wrapper" -- "${tiny_settings[@]}" --quiet --set max_epochs=3 --set target_hit_rate=0.999 >sweep.txt 2>&1
  status=$?
  cat sweep.txt
  [ -f "$work/killed_at" ] || fail "rank 1 was never killed"
  [ "$status" = 1 ] || fail "the sweep exited $status, not 1 (a run failed)"
  ledger=$work/sweep/sweep.tsv
  grep -qP '^2\t1\t[0-9]+\tfailed\t' "$ledger" || fail "seed 1 is not recorded as failed: $(cat "$ledger")"
  grep -qP '^2\t2\t1\tno\t' "$ledger" || fail "the sweep did not go on to seed 2: $(cat "$ledger")"
  wall=$(awk -F'\t' '$2 == 1 { print $6 }' "$ledger")
  echo "seed 1 ran $wall s in all"
  # The job ended within 30 s of the kill: the first run's console ends no later than that.
  killed_at=$(cat "$work/killed_at")
  ended_at=$(stat -c %Y "$work/sweep/console/np2_seed1.txt")
  awk -v k="$killed_at" -v e="$ended_at" 'BEGIN { exit !(e - k <= 30) }' || fail "the job ended $(awk -v k="$killed_at" -v e="$ended_at" 'BEGIN { print e - k }') s after the kill"
  [ "$(find "$work/sweep" -name 'result_*.txt' | wc -l)" = 1 ] ||
    fail "not exactly one finished log (seed 2's): $(find "$work/sweep" -name 'result_*')"
  [ -z "$(find "$work/sweep" -name '*.partial')" ] || fail "a partial log is left"
  [ -z "$(pgrep -f -- "$work/mlharness" || true)" ] || fail "processes left: $(pgrep -af -- "$work/mlharness")"
  ;;
nonfinite)
  status=0
  "$binary" "${tiny[@]}" --seed 3 --set learning_rate=1e30 --set max_epochs=3 --out "$work/a" >run.txt 2>&1 || status=$?
  [ "$status" = 1 ] || { cat run.txt; fail "exit $status, not 1"; }
  log=$work/a/cpu/ncf/result_0.txt
  run_stop_of "$log" | grep -q '"status": "aborted", "reason": "non-finite training loss in epoch 1"' ||
    fail "the log does not end with run_stop aborted for the non-finite loss: $(run_stop_of "$log")"
  grep -q '"status": "aborted"' "$work/a/cpu/ncf/result_0.json" || fail "the record does not say aborted"
  ;;
disk_full)
  "$binary" "${tiny[@]}" --seed 4 --set max_epochs=3 --set target_hit_rate=0.999 --checkpoint-every 1 \
    --keep-checkpoints 3 --out "$work/out" >a.txt 2>&1
  folder=$work/out/cpu/ncf
  [ -f "$folder/result_0.checkpoints/epoch_0003/manifest.json" ] || { cat a.txt; fail "run A wrote no checkpoints"; }
  cp -a "$work/out" "$work/before"
  bytes=$(stat -c %s "$folder/result_0.checkpoints/epoch_0001/rank_0.state")
  limit_kib=$((bytes / 1024 / 2))
  [ "$limit_kib" -gt 64 ] || fail "a checkpoint of $bytes bytes is too small for this test"
  # The limit (RLIMIT_FSIZE, as `ulimit -f` sets it) is put on the running process once its log
  # exists: MPI's own start-up files are larger than a checkpoint-sized limit allows.
  "$binary" "${tiny[@]}" --seed 4 --set max_epochs=3 --set target_hit_rate=0.999 --checkpoint-every 1 \
    --resume "$folder/result_0.checkpoints/epoch_0001" --out "$work/out" >b.out 2>b.err &
  pid=$!
  wait_for "$folder/result_1.txt.partial" 60 || fail "the resumed run did not start"
  prlimit --pid "$pid" --fsize=$((limit_kib * 1024)) || fail "prlimit failed"
  status=0
  wait "$pid" || status=$?
  [ "$status" = 2 ] || { cat b.out b.err; fail "exit $status, not 2"; }
  [ "$(wc -l <b.err)" = 1 ] || fail "not a one-line error: $(cat b.err)"
  grep -q "cannot write .*File too large" b.err || fail "the error does not say why: $(cat b.err)"
  echo "the error: $(cat b.err)"
  diff -r "$work/before" "$work/out" || fail "the earlier checkpoints or results changed"
  [ -z "$(find "$work/out" -name '*.partial' -o -name '*.tmp' -o -name 'result_1*')" ] ||
    fail "half-written files left: $(find "$work/out" -name '*.partial' -o -name '*.tmp' -o -name 'result_1*')"
  # The newest checkpoint damaged: refused, and the one before it resumed.
  truncate -s 1000 "$folder/result_0.checkpoints/epoch_0003/rank_0.state"
  "$binary" "${tiny[@]}" --seed 4 --set max_epochs=3 --set target_hit_rate=0.999 \
    --resume "$folder/result_0.checkpoints" --out "$work/out" >c.txt 2>&1
  grep -q "checkpoint refused: .*epoch_0003: rank_0.state has 1000 bytes" c.txt || { cat c.txt; fail "the damaged checkpoint was not refused with its reason"; }
  grep -q "resuming after epoch 2" c.txt || fail "the previous checkpoint was not used"
  ;;
disk_full_tmpfs)
  # Run A on the ordinary disk: three checkpoints, their size measured.
  "$binary" "${tiny[@]}" --seed 4 --set max_epochs=3 --set target_hit_rate=0.999 --checkpoint-every 1 \
    --keep-checkpoints 3 --out "$work/a" >a.txt 2>&1
  [ -f "$work/a/cpu/ncf/result_0.checkpoints/epoch_0003/manifest.json" ] || { cat a.txt; fail "run A wrote no checkpoints"; }
  checkpoint_bytes=$(du -sb "$work/a/cpu/ncf/result_0.checkpoints/epoch_0001" | cut -f1)
  used_kib=$(du -sk "$work/a" | cut -f1)
  # The tmpfs: A's results as they lie (in 4 KiB pages), and room for half a checkpoint more.
  size_kib=$((used_kib + checkpoint_bytes / 2048 + 16))
  mkdir -p "$work/full"
  printf -v run_b '%q ' "$binary" "${tiny[@]}" --seed 4 --set max_epochs=3 --set target_hit_rate=0.999 \
    --checkpoint-every 1 --resume "$work/full/cpu/ncf/result_0.checkpoints/epoch_0001" --out "$work/full"
  # In a mount namespace of its own: the tmpfs goes away with it, whatever happens.
  inside="mount -t tmpfs -o size=${size_kib}k mlh_full '$work/full' || exit 77
    cp -a '$work/a/.' '$work/full/' && cp -a '$work/full' '$work/before' || exit 3
    df -k '$work/full' | tail -1
    status=0; $run_b >b.out 2>b.err || status=\$?; echo \$status >b.status
    find '$work/full' -name '*.partial' -o -name '*.tmp' -o -name 'result_1*' >left.txt
    diff -r '$work/before' '$work/full' >changed.txt 2>&1
    cp -a '$work/full/cpu/ncf/result_0.checkpoints/epoch_0002' '$work/kept'"
  status=0
  if [ "$(id -u)" = 0 ]; then
    unshare --mount --propagation private bash -c "$inside" || status=$?
  else
    unshare --user --map-root-user --mount bash -c "$inside" 2>/dev/null || status=$?
  fi
  if [ ! -f b.status ]; then
    echo "fault_check disk_full_tmpfs: SKIPPED: cannot mount a tmpfs here (needs root, or user namespaces; status $status)"
    exit 77
  fi
  [ "$(cat b.status)" = 2 ] || { cat b.out b.err; fail "exit $(cat b.status), not 2"; }
  [ "$(wc -l <b.err)" = 1 ] || fail "not a one-line error: $(cat b.err)"
  grep -q "No space left on device" b.err || fail "the error does not say why: $(cat b.err)"
  echo "the error: $(cat b.err)"
  [ ! -s changed.txt ] || { cat changed.txt; fail "the earlier checkpoints or results changed"; }
  [ ! -s left.txt ] || fail "half-written files left: $(cat left.txt)"
  # A checkpoint kept on the full disk resumes (on a disk with room) and runs to the end.
  "$binary" "${tiny[@]}" --seed 4 --set max_epochs=3 --set target_hit_rate=0.999 --resume "$work/kept" \
    --out "$work/c" >c.txt 2>&1
  grep -q "resuming after epoch 2" c.txt || { cat c.txt; fail "the checkpoint kept on the full disk did not resume"; }
  grep -q '"key": "run_stop"' "$work/c/cpu/ncf/result_0.txt" || fail "the resumed run did not finish its log"
  ;;
*)
  fail "unknown case (sigterm, sigint, sigint_mpi, kill9_sweep, nonfinite, disk_full, disk_full_tmpfs)"
  ;;
esac
echo "fault_check $case_name: PASS"
