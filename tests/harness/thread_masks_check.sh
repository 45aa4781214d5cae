#!/usr/bin/env bash
# thread_masks_check.sh MPIRUN PROBE: every thread of every rank ends with its rank's share of the
# cores, and the rank was loaded on that share (libraries count CPUs as they load), under each way a
# rank is started: no launcher, `mpirun -np 1` and `-np 2` (OpenMPI binds those to one core each by
# default), and an explicit `--bind-to`. PROBE is thread_masks_probe.
set -uo pipefail
read -ra mpirun <<<"$1"
probe=$2
mine=$(awk '/^Cpus_allowed_list/ {print $2}' /proc/self/status)
cpus=$(nproc)
failed=0
fail() { echo "FAIL: $*"; failed=1; }

# run_probe NAME COMMAND...: runs the probe, prints its lines, and leaves them in $lines.
run_probe() {
  local name=$1
  shift
  echo "== $name: $*"
  if ! lines=$("$@" 2>&1); then fail "$name: the probe failed: $lines"; lines=""; fi
  echo "$lines"
}
# expect_rank NAME RANK MASK CORES: every thread of RANK is on MASK, and the rank counts CORES cores.
expect_rank() {
  local name=$1 rank=$2 mask=$3 cores=$4
  local threads
  threads=$(grep -c "^rank $rank " <<<"$lines")
  ((threads >= 3)) || fail "$name: rank $rank printed $threads threads (main, two of the probe's, LibTorch's)"
  local wrong
  wrong=$(grep "^rank $rank " <<<"$lines" | grep -v " cpus $mask\$")
  [[ -z "$wrong" ]] || fail "$name: threads of rank $rank not on $mask: $wrong"
  grep "^rank $rank " <<<"$lines" | grep -qv " cores $cores " && fail "$name: rank $rank does not have $cores cores"
  grep -qx "loaded rank $rank cpus $mask" <<<"$lines" || fail "$name: rank $rank was not loaded on $mask"
  return 0
}

run_probe "no launcher" "$probe"
expect_rank "no launcher" 0 "$mine" "$cpus"

run_probe "mpirun -np 1" "${mpirun[@]}" -np 1 "$probe"
expect_rank "mpirun -np 1" 0 "$mine" "$cpus"

run_probe "mpirun --bind-to core -np 1" "${mpirun[@]}" --bind-to core -np 1 "$probe"
bound=$(awk '/^rank 0 / {print $NF; exit}' <<<"$lines")
[[ -n "$bound" && "$bound" != *[,-]* ]] || fail "--bind-to core: rank 0 is on '$bound', not one core"
expect_rank "mpirun --bind-to core -np 1" 0 "$bound" 1

run_probe "mpirun --bind-to none -np 1" "${mpirun[@]}" --bind-to none -np 1 "$probe"
expect_rank "mpirun --bind-to none -np 1" 0 "$mine" "$cpus"

if ((cpus >= 2)); then
  run_probe "mpirun -np 2" "${mpirun[@]}" -np 2 "$probe"
  first=$(awk '/^rank 0 / {print $NF; exit}' <<<"$lines")
  second=$(awk '/^rank 1 / {print $NF; exit}' <<<"$lines")
  [[ -n "$first" && -n "$second" && "$first" != "$second" ]] || fail "-np 2: ranks on '$first' and '$second', not their own cores"
  expect_rank "mpirun -np 2" 0 "$first" $(((cpus + 1) / 2))
  expect_rank "mpirun -np 2" 1 "$second" $((cpus / 2))
else
  echo "(one CPU: the two-rank case needs two)"
fi

if ((failed)); then echo "thread masks: FAILED"; exit 1; fi
echo "thread masks: every thread of every rank on its share"
