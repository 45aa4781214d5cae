#!/usr/bin/env bash
# Times `mlharness coco-eval` against pycocotools' COCOeval on the same COCO-sized files: 5,000
# images, 100 mask detections each (tools/make_coco_segm_bench.py writes them), both iou types' work
# for segm. Prints each run's wall-clock seconds and peak RSS, the medians, the speed-up, and the
# largest difference between the two tools' 12 numbers.
#
#   tools/bench_coco_eval.sh [--python PY] [--runs N] [--bin MLHARNESS] [FOLDER]
#
# PY is a Python with pycocotools and numpy (default /root/.cache/mlharness/pyref-bench/bin/python;
# see tools/make_coco_segm_bench.py for the venv), used to make the files when FOLDER (default
# /tmp/coco_segm_bench) lacks them and to run pycocotools. N runs of each (default 3). The binary is
# build/launch/mlharness unless --bin or $MLHARNESS names another. pycocotools runs on one core; run
# this on an otherwise idle machine.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
python="/root/.cache/mlharness/pyref-bench/bin/python"
bin="${MLHARNESS:-$here/../build/launch/mlharness}"
runs=3
folder=/tmp/coco_segm_bench
while [[ $# -gt 0 ]]; do
  case "$1" in
    --python) python="$2"; shift 2 ;;
    --runs) runs="$2"; shift 2 ;;
    --bin) bin="$2"; shift 2 ;;
    -h|--help) sed -n '2,13p' "$0"; exit 0 ;;
    -*) echo "bench_coco_eval.sh: unknown option $1" >&2; exit 2 ;;
    *) folder="$1"; shift ;;
  esac
done
[[ -x "$python" ]] || { echo "bench_coco_eval.sh: $python is not a Python with pycocotools (see --help)" >&2; exit 2; }
[[ -x "$bin" ]] || { echo "bench_coco_eval.sh: $bin is not built" >&2; exit 2; }
if [[ ! -f "$folder/detections.json" ]]; then
  "$python" "$here/make_coco_segm_bench.py" "$folder"
fi

# One timed command: prints "seconds peak_kib".
timed() {
  /usr/bin/time -f "%e %M" -o "$folder/time.txt" "$@" >/dev/null 2>"$folder/stderr.txt" ||
    { cat "$folder/stderr.txt" >&2; exit 1; }
  cat "$folder/time.txt"
}
median() { sort -n | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'; }

ours=() theirs=()
for ((i = 1; i <= runs; ++i)); do
  ours+=("$(timed "$bin" coco-eval --annotations "$folder/instances.json" --detections "$folder/detections.json" \
            --iou-type segm --json "$folder/mlharness_stats.json")")
  echo "mlharness coco-eval  run $i: ${ours[-1]% *} s, peak RSS $(( ${ours[-1]#* } / 1024 )) MiB"
done
for ((i = 1; i <= runs; ++i)); do
  theirs+=("$(timed "$python" "$here/make_coco_segm_bench.py" "$folder" --time-pycocotools)")
  echo "pycocotools COCOeval run $i: ${theirs[-1]% *} s, peak RSS $(( ${theirs[-1]#* } / 1024 )) MiB"
done
ours_median=$(printf '%s\n' "${ours[@]%% *}" | median)
theirs_median=$(printf '%s\n' "${theirs[@]%% *}" | median)
"$python" - "$folder" "$ours_median" "$theirs_median" <<'PY'
import json, sys
folder, ours, theirs = sys.argv[1], float(sys.argv[2]), float(sys.argv[3])
a = json.load(open(folder + "/mlharness_stats.json"))["stats"]
b = json.load(open(folder + "/pycocotools_stats.json"))["stats"]
print("median wall-clock: mlharness %.2f s, pycocotools %.2f s (whole processes): %.1fx" % (ours, theirs, theirs / ours))
print("largest difference of the 12 numbers: %.3g" % max(abs(x - y) for x, y in zip(a, b)))
PY
