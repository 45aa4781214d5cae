#!/usr/bin/env bash
# mlharness bench against the project's plain-PyTorch reference loop (reference/<workload>.py) on the
# same workload, batch, threads and precision, in one sitting: interleaved rounds, medians, the ratio
# and the machine. See usage below and reference/README.md.
set -euo pipefail

usage() {
  cat <<'EOF'
usage: bash launch/compare_reference.sh --workload NAME [options]

Runs `mlharness bench` and reference/NAME.py (plain PyTorch, eager) with the same batch, threads and
precision, one after the other, ROUNDS times (mlharness, reference, mlharness, reference, ...), and
prints the median rate of each, their ratio and the machine.

  --workload NAME      a workload with a reference loop (listed below); required
  --batch-size N       per step, in the workload's bench unit (listed below). Default: the workload's
                       (CPU-sized), from the reference entry of its folder's checks.json
  --threads T          intra-op and BLAS threads of both (default: the cores this shell may use);
                       mlharness gets --set intra_op_threads=T
  --precision P        fp32 (default) or amp (bf16 autocast on the CPU, in both)
  --channels-last      where the workload's checks.json allows it (the image classifier): NHWC in both
  --loader             where the workload's checks.json has a loader entry (the image classifier): the
                       input pipeline alone, no model: `mlharness bench --loader`
                       (loader_threads T) against reference/resnet50_loader.py (torchvision ImageFolder,
                       RandomResizedCrop(224), flip, ToTensor, Normalize in a DataLoader with T
                       workers) on the JPEG tree --data DIR; batch default 64; both print images/s
  --data DIR           with --loader: an ImageNet-layout tree, DIR/train/<class>/*.JPEG and
                       DIR/LOC_synset_mapping.txt (tools/make_imagenet_tree.py makes one)
  --rounds R           interleaved rounds (default 3)
  --warmup N           untimed steps per run; --steps N steps per timed window; --repeats N windows
                       per run, the median kept (defaults: the workload's checks.json)
  --quick              a test-sized comparison: one round, a tiny batch, 1 warm-up step, one window
                       of 2 steps, and the workload's quick_settings from its checks.json (a smaller
                       image side, say) in both (the figures mean little)
  --mlharness PATH     the mlharness binary (default: build/launch/mlharness beside this script,
                       else mlharness on the PATH)
  --python PATH        the Python with Debian's python3-torch (default /usr/bin/python3, not the
                       first python3 on the PATH)
  --plain-malloc       run the reference with glibc's default malloc settings (default: those
                       mlharness sets for itself, through GLIBC_TUNABLES)
  --json FILE          also write the comparison as JSON
  -h, --help           this text

Exit status: 0 compared, 1 a run failed, 2 bad input or a missing prerequisite.

The workloads with a reference loop, and their bench units:
EOF
  python3 "$(dirname "${BASH_SOURCE[0]}")/workload_checks.py" units | sed 's/^/  /'
}

die() {
  echo "compare_reference.sh: error: $*" >&2
  exit 2
}

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
workload="" batch="" threads="" precision=fp32 channels_last=0 rounds="" warmup="" steps="" repeats=""
quick=0 mlharness="" python=/usr/bin/python3 plain_malloc=0 json_out="" loader=0 data=""
while [ $# -gt 0 ]; do
  case $1 in
    -h | --help) usage; exit 0 ;;
    --channels-last) channels_last=1; shift; continue ;;
    --quick) quick=1; shift; continue ;;
    --plain-malloc) plain_malloc=1; shift; continue ;;
    --loader) loader=1; shift; continue ;;
    --workload | --batch-size | --threads | --precision | --rounds | --warmup | --steps | --repeats | --mlharness | --python | --json | --data)
      [ $# -ge 2 ] || die "$1 needs a value (see --help)" ;;
    *) die "unknown argument '$1' (see --help)" ;;
  esac
  case $1 in
    --workload) workload=$2 ;;
    --batch-size) batch=$2 ;;
    --threads) threads=$2 ;;
    --precision) precision=$2 ;;
    --rounds) rounds=$2 ;;
    --warmup) warmup=$2 ;;
    --steps) steps=$2 ;;
    --repeats) repeats=$2 ;;
    --mlharness) mlharness=$2 ;;
    --python) python=$2 ;;
    --json) json_out=$2 ;;
    --data) data=$2 ;;
  esac
  shift 2
done

# The workload's defaults, from its checks.json: batch, quick batch, warm-up, steps, repeats, and
# whether it takes --channels-last and has a loader reference.
[ -n "$workload" ] || die "--workload is required: one of $(python3 "$root/launch/workload_checks.py" references)"
defaults_line=$(python3 "$root/launch/workload_checks.py" reference "$workload" 2>&1) ||
  die "unknown workload '$workload': ${defaults_line#workload_checks.py: }"
read -r -a defaults <<<"$defaults_line"
takes_channels_last=${defaults[5]} has_loader=${defaults[6]}
if [ "$loader" = 1 ]; then
  [ "$has_loader" = 1 ] || die "--loader: '$workload' has no loader reference"
  [ "$channels_last" = 0 ] || die "--loader times no model: drop --channels-last"
  [ -n "$data" ] || die "--loader needs --data DIR, a JPEG tree (make one with tools/make_imagenet_tree.py)"
  [ -d "$data/train" ] || die "--data $data has no train/ folder (make one with tools/make_imagenet_tree.py)"
  data=$(cd "$data" && pwd)
  read -r -a defaults <<<"$(python3 "$root/launch/workload_checks.py" reference "$workload" loader)"
elif [ -n "$data" ]; then
  die "--data goes with --loader"
fi
quick_settings=()
if [ "$quick" = 1 ]; then
  : "${batch:=${defaults[1]}}" "${rounds:=1}" "${warmup:=1}" "${steps:=2}" "${repeats:=1}"
  # A test-sized input where the workload's checks.json asks for one (an image side, say).
  [ "$loader" = 1 ] || mapfile -t quick_settings < <(python3 "$root/launch/workload_checks.py" quick-settings "$workload")
fi
: "${batch:=${defaults[0]}}" "${rounds:=3}" "${warmup:=${defaults[2]}}" "${steps:=${defaults[3]}}" "${repeats:=${defaults[4]}}"
: "${threads:=$(nproc)}"
for pair in "batch-size:$batch" "threads:$threads" "rounds:$rounds" "steps:$steps" "repeats:$repeats"; do
  [[ ${pair#*:} =~ ^[1-9][0-9]{0,8}$ ]] || die "--${pair%%:*} '${pair#*:}' is not a positive whole number"
done
[[ $warmup =~ ^[0-9]{1,9}$ ]] || die "--warmup '$warmup' is not a whole number"
case $precision in fp32 | amp) ;; *) die "--precision '$precision': fp32 or amp" ;; esac
if [ "$channels_last" = 1 ] && [ "$takes_channels_last" != 1 ]; then
  die "--channels-last: '$workload' takes no --channels-last in its bench (its checks.json)"
fi

if [ -z "$mlharness" ]; then
  if [ -x "$root/build/launch/mlharness" ]; then
    mlharness=$root/build/launch/mlharness
  else
    mlharness=$(command -v mlharness || true)
  fi
fi
[ -n "$mlharness" ] && [ -x "$mlharness" ] && [ ! -d "$mlharness" ] ||
  die "mlharness is not built: no executable ${mlharness:-at $root/build/launch/mlharness or on the PATH}; build it (cmake -S . -B build && cmake --build build) or pass --mlharness PATH"
mlharness=$(cd "$(dirname "$mlharness")" && pwd)/$(basename "$mlharness")
[ -x "$python" ] || die "no Python at $python; install Debian's python3 and python3-torch (apt-get install -y --no-install-recommends python3-torch) or pass --python PATH"
torch_version=$("$python" -c 'import sys; sys.dont_write_bytecode = True; import torch; print(torch.__version__)' 2>/dev/null) ||
  die "$python cannot import torch: install Debian's PyTorch with apt-get install -y --no-install-recommends python3-torch (or pass --python PATH to a Python that has it)"
script=$root/reference/$workload.py
[ "$loader" = 1 ] && script=$root/reference/${workload}_loader.py
[ -f "$script" ] || die "no reference loop at $script"

work=$(mktemp -d "${TMPDIR:-/tmp}/compare_reference.XXXXXX")
trap 'rm -rf "$work"' EXIT

# The heap mlharness keeps for itself (harness/world.h, configure_host_allocator): no mmap per
# allocation, no trimming, a 1 GiB top pad, so tensors reallocated every step reuse warm pages.
malloc_tunables=glibc.malloc.mmap_max=0:glibc.malloc.trim_threshold=2147483647:glibc.malloc.top_pad=1073741824
reference_env=(env PYTHONDONTWRITEBYTECODE=1 OMP_NUM_THREADS="$threads")
if [ "$plain_malloc" = 0 ]; then
  reference_env+=(GLIBC_TUNABLES="$malloc_tunables")
  malloc_note="GLIBC_TUNABLES=$malloc_tunables (the heap mlharness keeps)"
else
  malloc_note="glibc's default malloc (--plain-malloc)"
fi
timing=(--warmup "$warmup" --steps "$steps" --repeats "$repeats")
extra=() mlh_args=(--precision "$precision" --set intra_op_threads="$threads") ref_args=(--threads "$threads" --precision "$precision")
[ "$channels_last" = 1 ] && extra+=(--channels-last)
for setting in "${quick_settings[@]}"; do
  key=${setting%%=*}
  mlh_args+=(--set "$setting")
  ref_args+=("--${key//_/-}" "${setting#*=}")
done
if [ "$loader" = 1 ]; then
  mlh_args=(--loader --set data_source=imagenet --set data_path="$data" --set loader_threads="$threads")
  ref_args=(--data "$data" --workers "$threads")
  "$python" -c 'import torchvision' 2>/dev/null ||
    die "$python cannot import torchvision: apt-get install -y --no-install-recommends python3-torchvision (or pass --python PATH)"
fi

# Reads FILE (JSON) and prints "RATE UNIT PRECISION_USED" for mlharness's (kind bench) or the reference's.
read_rate() {
  "$python" - "$1" "$2" <<'EOF'
import json, sys
kind, path = sys.argv[1], sys.argv[2]
with open(path) as f:
    if kind == "bench":
        case = json.load(f)["cases"][0]
        print(case["per_rank_per_second"], case["unit"], case["precision_used"].replace(" ", "_"))
    else:
        result = json.loads(f.read().strip().splitlines()[-1])
        print(result["per_second"], result["unit"], result["precision_used"].replace(" ", "_"))
EOF
}

# A rate with one decimal, three under 10 (a few images/s or less, as the detectors' on a CPU).
format_rate() {
  awk -v rate="$1" 'BEGIN { printf(rate < 10 ? "%.3f" : "%.1f", rate) }'
}

cpu=$(sed -n 's/^model name[[:space:]]*:[[:space:]]*//p' /proc/cpuinfo | head -n 1)
echo "compare_reference: $workload, batch $batch, $precision, $threads thread(s), $rounds interleaved round(s) of" \
  "$warmup warm-up step(s) then $repeats window(s) of $steps steps (median window)"
echo "machine: ${cpu:-unknown CPU}, $(nproc --all) cores ($(nproc) usable here), $(uname -sr)," \
  "load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "mlharness: $mlharness bench ${mlh_args[*]}"
echo "reference: ${script#"$root"/} ${ref_args[*]} under $python (torch $torch_version), OMP_NUM_THREADS=$threads, $malloc_note"

mlh_rates=() ref_rates=() unit="" mlh_precision="" ref_precision=""
for ((round = 1; round <= rounds; round++)); do
  if ! (cd "$work" && "$mlharness" bench --workload "$workload" --batch-size "$batch" "${mlh_args[@]}" \
        "${timing[@]}" "${extra[@]}" --json "$work/bench.json" >"$work/bench.out" 2>&1); then
    cat "$work/bench.out" >&2
    echo "compare_reference.sh: mlharness bench failed in round $round (its output is above)" >&2
    exit 1
  fi
  result=$(read_rate bench "$work/bench.json") || { echo "compare_reference.sh: mlharness bench wrote no rate in its --json file (round $round)" >&2; exit 1; }
  read -r rate unit mlh_precision <<<"$result"
  mlh_rates+=("$rate")
  if ! (cd "$work" && "${reference_env[@]}" "$python" "$script" --batch-size "$batch" "${ref_args[@]}" \
        "${timing[@]}" "${extra[@]}" >"$work/reference.out" 2>"$work/reference.err"); then
    cat "$work/reference.err" >&2
    echo "compare_reference.sh: ${script#"$root"/} failed in round $round (its output is above)" >&2
    exit 1
  fi
  result=$(read_rate reference "$work/reference.out") || { echo "compare_reference.sh: ${script#"$root"/} printed no JSON rate (round $round)" >&2; exit 1; }
  read -r ref_rate ref_unit ref_precision <<<"$result"
  [ "$ref_unit" = "$unit" ] || { echo "compare_reference.sh: units differ: mlharness $unit/s, reference $ref_unit/s" >&2; exit 1; }
  ref_rates+=("$ref_rate")
  printf 'round %d: mlharness %s %s/s, reference %s %s/s\n' "$round" "$(format_rate "$rate")" "$unit" \
    "$(format_rate "$ref_rate")" "$unit"
done

"$python" - "$workload" "$batch" "$precision" "$threads" "$unit" "${mlh_precision//_/ }" "${ref_precision//_/ }" \
  "$cpu" "$(nproc --all)" "$python" "$torch_version" "$json_out" "${mlh_rates[*]}" "${ref_rates[*]}" "$loader" <<'EOF'
import json, statistics, sys
(workload, batch, precision, threads, unit, mlh_precision, ref_precision, cpu, cores, python, torch_version,
 json_out, mlh, ref, loader) = sys.argv[1:]
mlh, ref = [float(x) for x in mlh.split()], [float(x) for x in ref.split()]
m, r = statistics.median(mlh), statistics.median(ref)
rate = lambda x: f"{x:14,.1f}" if x >= 10 else f"{x:14,.3f}"  # noqa: E731 (format_rate's digits)
print(f"median of {len(mlh)} round(s), {unit}/s:")
print(f"  mlharness  {rate(m)} {unit}/s  ({mlh_precision})")
print(f"  reference  {rate(r)} {unit}/s  ({ref_precision}, plain PyTorch {torch_version})")
print(f"  ratio      {m / r:14.2f}  (mlharness / reference)")
if loader == "1":
    print(f"  per loader core: mlharness {m / int(threads):,.1f}, reference {r / int(threads):,.1f} {unit}/s "
          f"({threads} decode threads / DataLoader workers each, beside the main thread)")
if json_out:
    with open(json_out, "w") as f:
        json.dump({"workload": workload, "batch_size": int(batch), "precision": precision, "threads": int(threads),
                   "unit": unit, "mlharness_per_second": m, "reference_per_second": r, "ratio": m / r,
                   "mlharness_rounds": mlh, "reference_rounds": ref, "cpu": cpu, "cores": int(cores),
                   "python": python, "torch": torch_version, "loader": loader == "1"}, f, indent=2)
        f.write("\n")
EOF
