#!/usr/bin/env bash
# mini_run.sh [--short] OUT_DIR COMMAND...: runs an mlharness command (plain or under mpirun) with its
# results and data in a fresh OUT_DIR, keeping its console output in OUT_DIR/console.txt. --short: a
# run cut to a few epochs, for which "target not reached" (exit 1) is a success too.
set -uo pipefail
short=0
if [ "$1" = "--short" ]; then
  short=1
  shift
fi
out=$1
shift
rm -rf "$out"
mkdir -p "$out"
"$@" --out "$out/results" --data-dir "$out/data" --quiet 2>&1 | tee "$out/console.txt"
status=$?
if [ "$short" = 1 ] && [ "$status" = 1 ]; then status=0; fi
exit "$status"
