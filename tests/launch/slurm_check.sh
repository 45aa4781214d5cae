#!/usr/bin/env bash
# launch/slurm.sbatch as far as a machine without SLURM allows: it parses, names what it runs (a dry
# run under a job's variables), and refuses to start outside a job or without a binary, with exit 2.
set -uo pipefail
script=$(realpath "${1:?the path of launch/slurm.sbatch}")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
check() {  # check NAME CONDITION...
  local name=$1; shift
  if "$@"; then echo "ok: $name"; else echo "FAIL: $name"; failures=$((failures + 1)); fi
}

check "bash -n parses it" bash -n "$script"
for setting in MLH_BINARY MLH_RESULTS MLH_DATA_DIR MLH_SRUN_MPI MLH_CHECKPOINT_EVERY MLH_DRY_RUN; do
  check "its header names $setting" grep -qE "^#   $setting[ =]" "$script"
done
for directive in --nodes --ntasks-per-node --gpus-per-node --cpus-per-task --time --signal --output; do
  check "it sets #SBATCH $directive" grep -q "^#SBATCH $directive=" "$script"
done

printf '#!/bin/sh\n' >"$work/mlharness" && chmod +x "$work/mlharness"
out=$(cd "$work" && SLURM_JOB_ID=17 SLURM_JOB_NUM_NODES=2 SLURM_NTASKS_PER_NODE="4(x2)" SLURM_SUBMIT_DIR="$work" \
  MLH_BINARY="$work/mlharness" MLH_DRY_RUN=1 MLH_CHECKPOINT_EVERY=2 bash "$script" --workload gnmt --seed 7 2>&1)
status=$?
echo "$out"
check "a dry run exits 0" [ "$status" = 0 ]
check "it says the layout" grep -q "job 17: 2 node(s) x 4 task(s)" <<<"$out"
check "srun with the PMIx plugin and the job killed on a failed rank" \
  grep -q "^srun --mpi=pmix --kill-on-bad-exit=1 $work/mlharness " <<<"$out"
check "results and generated data under the submit folder" grep -q -- "--out $work/results --data-dir $work/data" <<<"$out"
check "checkpoints as asked" grep -q -- "--checkpoint-every 2" <<<"$out"
check "mlharness's own arguments last" grep -q -- "--workload gnmt --seed 7 $" <<<"$out"
check "a multi-node job with checkpoints on a local disk is warned about" grep -q "may not be shared between nodes" <<<"$out"
check "the results folder was made" [ -d "$work/results" ]

out=$(env -u SLURM_JOB_ID bash "$script" --workload ncf 2>&1); status=$?
check "outside a job: exit 2" [ "$status" = 2 ]
check "outside a job: says to use sbatch" grep -q "submit it with sbatch" <<<"$out"
out=$(SLURM_JOB_ID=17 MLH_BINARY="$work/none" bash "$script" --workload ncf 2>&1); status=$?
check "no binary: exit 2" [ "$status" = 2 ]
check "no binary: names it" grep -q "MLH_BINARY '$work/none' is not an executable" <<<"$out"
out=$(SLURM_JOB_ID=17 MLH_BINARY="$work/mlharness" bash "$script" 2>&1); status=$?
check "no mlharness arguments: exit 2" [ "$status" = 2 ]

[ "$failures" = 0 ] && echo "slurm_check: all passed" || { echo "slurm_check: $failures failed"; exit 1; }
