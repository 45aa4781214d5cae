#!/usr/bin/env bash
# mini_run.sh OUT_DIR COMMAND...: runs an mlharness command (plain or under mpirun) with its results
# and data in a fresh OUT_DIR, keeping its console output in OUT_DIR/console.txt.
set -uo pipefail
out=$1
shift
rm -rf "$out"
mkdir -p "$out"
"$@" --out "$out/results" --data-dir "$out/data" --quiet 2>&1 | tee "$out/console.txt"
