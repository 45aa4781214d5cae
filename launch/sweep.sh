#!/usr/bin/env bash
# Seed sweep: one mlharness run per (rank count, seed), each launched as `mpirun -np N mlharness ...`,
# into one MLPerf results folder, with a ledger that makes the sweep resumable. See usage below.
set -euo pipefail

usage() {
  cat <<'EOF'
usage: bash launch/sweep.sh --workload NAME --seeds LIST --out DIR [options] [-- MLHARNESS-ARGS...]

Runs `mpirun -np N mlharness --workload NAME --seed S --out DIR ...` for every rank count N and every
seed S (all seeds for the first N, then the next N), one run after the other.

  --workload NAME     the workload (see `mlharness list`); required
  --config NAME|PATH  its config (`mini`, or a YAML file); default: the full-scale recipe
  --seeds LIST        seeds: numbers and ranges, e.g. 1-10 or 1,3,5-7; required
  --np LIST           rank counts, e.g. 1,2,4 (default 1); every run goes through mpirun, also -np 1
  --out DIR           the results folder; required
  --data-dir DIR      passed to mlharness (where generated datasets are kept)
  --platform NAME     the device part of the platform label: runs on N ranks are labelled NxNAME
                      (default: detected, e.g. 4xTesla-T4)
  --mlharness PATH    the mlharness binary (default: build/launch/mlharness beside this script,
                      else mlharness on the PATH)
  -- ARGS...          passed to every run, e.g. -- --set max_epochs=3 --quiet
  -h, --help          this text

Results: DIR/<platform>/<benchmark>/result_<i>.txt and .json, as mlharness writes them; the platform
label carries the rank count (1xAMD-EPYC, 2xAMD-EPYC), so each rank count numbers its own results and
DIR is an MLPerf results tree (`mlharness score DIR`, `mlharness report DIR`).
DIR/sweep.tsv, the ledger: one line per finished run (np, seed, exit status, converged yes/no/failed,
result log, wall seconds, command). DIR/console/np<N>_seed<S>.txt: each run's console output.

Running the same command again resumes: runs in the ledger are skipped, the others run (delete a
ledger line to run that one again). A run stopped by Ctrl-C leaves no ledger line and no result.
Exit status: 0 every run finished (converged or not), 1 some run failed (exit 2 or more, a crash),
2 bad input, 130 interrupted.
EOF
}

die() {
  echo "sweep.sh: error: $*" >&2
  exit 2
}

# Prints the numbers of a list such as 1,3,5-7 one per line, each once, in order of first mention.
expand_number_list() {
  local list=$1 what=$2 item first last n
  local -A seen=()
  [ -n "$list" ] || die "--$what is empty; give numbers and ranges, e.g. 1-10 or 1,3,5-7"
  local IFS=,
  for item in $list; do
    if [[ $item =~ ^[0-9]{1,18}$ ]]; then
      first=$((10#$item)) last=$first
    elif [[ $item =~ ^([0-9]{1,18})-([0-9]{1,18})$ ]]; then
      first=$((10#${BASH_REMATCH[1]})) last=$((10#${BASH_REMATCH[2]}))
      [ "$first" -le "$last" ] || die "--$what '$list': range '$item' runs backwards; write $last-$first"
    else
      die "--$what '$list': '$item' is not a number or a range like 5-7"
    fi
    for ((n = first; n <= last; n++)); do
      [ -z "${seen[$n]:-}" ] || continue
      seen[$n]=1
      echo "$n"
    done
  done
}

workload="" config="" seeds_text="" np_text="1" out="" data_dir="" platform="" mlharness=""
extra_args=()
while [ $# -gt 0 ]; do
  option=$1
  case $option in
    -h | --help) usage; exit 0 ;;
    --) shift; extra_args=("$@"); break ;;
    --*=*) value=${option#*=}; option=${option%%=*} ;;
    --*)
      [ $# -ge 2 ] || die "$option needs a value (see --help)"
      value=$2
      shift ;;
    *) die "unexpected argument '$option'; mlharness arguments go after -- (see --help)" ;;
  esac
  shift
  case $option in
    --workload) workload=$value ;;
    --config) config=$value ;;
    --seeds) seeds_text=$value ;;
    --np) np_text=$value ;;
    --out) out=$value ;;
    --data-dir) data_dir=$value ;;
    --platform) platform=$value ;;
    --mlharness) mlharness=$value ;;
    *) die "unknown option '$option' (see --help)" ;;
  esac
done

[ -n "$workload" ] || die "--workload is missing (see --help)"
[ -n "$seeds_text" ] || die "--seeds is missing or empty; give numbers and ranges, e.g. --seeds 1-10"
[ -n "$out" ] || die "--out is missing: the results folder of the sweep"
seed_list=$(expand_number_list "$seeds_text" seeds) || exit 2
rank_count_list=$(expand_number_list "$np_text" np) || exit 2
mapfile -t seeds <<<"$seed_list"
mapfile -t rank_counts <<<"$rank_count_list"
for np in "${rank_counts[@]}"; do
  [ "$np" -ge 1 ] || die "--np '$np_text': a rank count must be at least 1"
done
for arg in "${extra_args[@]}"; do
  case $arg in
    --seed | --seed=* | --out | --out=* | -o | --workload | --workload=* | -w | --config | --config=* | -c | \
      --platform | --platform=* | --data-dir | --data-dir=*)
      die "'$arg' after -- is set by the sweep; use the sweep's own option (see --help)" ;;
  esac
done

if [ -z "$mlharness" ]; then
  mlharness="$(dirname "$0")/../build/launch/mlharness"
  [ -x "$mlharness" ] || mlharness=$(command -v mlharness) ||
    die "no mlharness: not built at $mlharness and not on the PATH; pass --mlharness PATH"
fi
[ -x "$mlharness" ] || die "--mlharness '$mlharness' is not an executable file"
mlharness=$(realpath "$mlharness")
command -v mpirun >/dev/null || die "mpirun is not on the PATH (Debian: apt-get install openmpi-bin)"

mpirun_args=(mpirun --oversubscribe)
[ "$(id -u)" -ne 0 ] || mpirun_args=(mpirun --allow-run-as-root --oversubscribe)
# The arguments every run shares, after the seed and results folder.
shared_args=()
[ -z "$config" ] || shared_args+=(--config "$config")
[ -z "$data_dir" ] || shared_args+=(--data-dir "$data_dir")

# Bad input (an unknown workload or config, a mistyped --set value) fails here once, not in every run.
check=("$mlharness" --workload "$workload" "${shared_args[@]}" "${extra_args[@]}" --help)
if ! check_output=$("${check[@]}" 2>&1 >/dev/null); then
  echo "sweep.sh: ${check_output##*$'\n'}" >&2
  exit 2
fi

run_command() {  # np seed -> the run's argument vector in the array `run_argv`
  run_argv=("${mpirun_args[@]}" -np "$1" "$mlharness" --workload "$workload" --seed "$2" --out "$out"
    "${shared_args[@]}")
  [ -z "$platform" ] || run_argv+=(--platform "${1}x$platform")
  run_argv+=("${extra_args[@]}")
}

quoted() {
  local text
  printf -v text '%q ' "$@"
  echo "${text% }"
}

mkdir -p "$out/console" || die "cannot create the results folder '$out'"
ledger=$out/sweep.tsv
exec {ledger_lock}>>"$ledger" || die "cannot write the ledger '$ledger'"
flock -n "$ledger_lock" || die "another sweep is running on '$out' (its ledger $ledger is locked)"
[ -s "$ledger" ] || printf 'np\tseed\texit_status\tconverged\tresult_log\twall_seconds\tcommand\n' >>"$ledger"

# The ledger's lines by "np seed".
declare -A ledger_line=()
while IFS=$'\t' read -r np seed rest; do
  [ "$np" != np ] || continue
  key="$np $seed"
  [ -n "${ledger_line[$key]:-}" ] || ledger_line[$key]="$np	$seed	$rest"
done <"$ledger"

for np in "${rank_counts[@]}"; do
  for seed in "${seeds[@]}"; do
    line=${ledger_line["$np $seed"]:-}
    [ -n "$line" ] || continue
    run_command "$np" "$seed"
    recorded=${line##*$'\t'}
    [ "$recorded" = "$(quoted "${run_argv[@]}")" ] ||
      die "$ledger records np $np seed $seed with another command; give the options it ran with, or another --out (recorded: $recorded)"
  done
done

# A run killed outright (not by Ctrl-C here) leaves its log as result_<i>.txt.partial: never a result.
while IFS= read -r -d '' partial; do
  echo "removed $partial, left by an interrupted run"
  rm -f "$partial"
done < <(find "$out" -name 'result_*.txt.partial' -type f -print0)

result_files() { find "$out" -name 'result_*' -type f | sort; }

run_pid="" stop_signal=""
on_signal() {
  stop_signal=$1
  [ -z "$run_pid" ] || kill -TERM "$run_pid" 2>/dev/null || true
}
exit_if_stopped() {
  [ -n "$stop_signal" ] || return 0
  echo "sweep stopped by SIG$stop_signal; the ledger holds every finished run: run the same command to resume"
  [ "$stop_signal" = INT ] && exit 130
  exit 143
}
trap 'on_signal INT' INT
trap 'on_signal TERM' TERM

total=$((${#rank_counts[@]} * ${#seeds[@]}))
index=0 skipped=0 converged=0 not_converged=0 failed=0
for np in "${rank_counts[@]}"; do
  for seed in "${seeds[@]}"; do
    exit_if_stopped
    index=$((index + 1))
    label="[$index/$total] np $np seed $seed"
    line=${ledger_line["$np $seed"]:-}
    if [ -n "$line" ]; then
      IFS=$'\t' read -r _ _ status outcome _ <<<"$line"
      case $outcome in
        yes) converged=$((converged + 1)) ;;
        no) not_converged=$((not_converged + 1)) ;;
        *) failed=$((failed + 1)) ;;
      esac
      skipped=$((skipped + 1))
      echo "$label: in the ledger (exit $status, converged $outcome), skipped"
      continue
    fi

    run_command "$np" "$seed"
    console=$out/console/np${np}_seed$seed.txt
    printf '%s ... ' "$label"
    before=$(result_files)
    started=$EPOCHREALTIME
    "${run_argv[@]}" >"$console" 2>&1 </dev/null &
    run_pid=$!
    [ -z "$stop_signal" ] || kill -TERM "$run_pid" 2>/dev/null || true
    while :; do  # a signal ends `wait` early (status > 128) while the run still winds down
      status=0
      wait "$run_pid" || status=$?
      { [ "$status" -gt 128 ] && kill -0 "$run_pid" 2>/dev/null; } || break
    done
    run_pid=""
    wall_seconds=$(awk -v a="$started" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }')
    mapfile -t new_files < <(comm -13 <(echo "$before") <(result_files))

    if [ -n "$stop_signal" ]; then
      [ ${#new_files[@]} -eq 0 ] || rm -f "${new_files[@]}"
      echo "interrupted; its files removed"
      exit_if_stopped
    fi

    result_log="-"
    for file in "${new_files[@]}"; do
      case $file in
        *.txt) result_log=$file ;;
        *.partial) rm -f "$file" ;;
      esac
    done
    case $status in
      0) outcome=yes ;;
      1) outcome=no ;;
      *) outcome=failed ;;
    esac
    # mpirun also exits 1 when its ranks are killed: a run counts only with its log.
    [ "$result_log" != - ] || outcome=failed
    case $outcome in
      yes)
        converged=$((converged + 1))
        epochs=$(sed -n 's/.* in \([0-9]*\) epochs at global batch.*/\1/p' "$console" | tail -1)
        echo "converged${epochs:+ in $epochs epochs}, $wall_seconds s" ;;
      no)
        not_converged=$((not_converged + 1))
        echo "not converged, $wall_seconds s" ;;
      failed)
        failed=$((failed + 1))
        reason=$(grep -m1 'mlharness: .*error' "$console" || true)
        [ "$status" -ge 2 ] || reason="no result log${reason:+; $reason}"
        echo "FAILED (exit $status), $wall_seconds s${reason:+: $reason}; see $console" ;;
    esac
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$np" "$seed" "$status" "$outcome" "$result_log" "$wall_seconds" \
      "$(quoted "${run_argv[@]}")" >>"$ledger"
  done
done

exit_if_stopped
echo "sweep: $total runs ($skipped already in the ledger): $converged converged, $not_converged not converged," \
  "$failed failed; ledger $ledger"
[ "$failed" -eq 0 ]
