#!/usr/bin/env bash
# ctest cuda.TwoRanks: the cuda tests that need two ranks, one GPU each, under `mpirun -np 2` where
# this machine shows two GPUs; elsewhere it says why and exits 77 (ctest: skipped).
#   two_ranks.sh TEST_BINARY MPIRUN [MPIRUN_FLAGS...]
set -uo pipefail
binary="$1"
shift
gpus="$("$binary" --visible-gpus)" || { echo "two_ranks: $binary --visible-gpus failed"; exit 1; }
if ((gpus < 2)); then
  echo "skipped: the two-rank cuda tests need two GPUs; $gpus visible"
  exit 77
fi
exec "$@" -np 2 "$binary" --gtest_filter='CudaTwoRanks.*'
