#!/usr/bin/env bash
# The GPU check: one script, two halves.
#
#   bash launch/device_check.sh pack [BUILD_DIR]    here, on the build machine
#   bash launch/device_check.sh run                 there, on a machine with one GPU
#
# pack takes the CUDA build (default build-cuda, made by `launch/setup.sh --cuda`; built first when
# missing) and writes .device-bundle/bundle.tar.xz: mlharness, the cuda test binary, and every shared
# library they load that is neither LibTorch's nor CUDA's nor the C library's (yaml-cpp, Boost, protobuf,
# OpenCV, ICU, OpenMPI and what they need), with OpenMPI's plugins, so that a machine that has torch
# 2.11 and a driver but no package registry runs the binary as built here; and libnvjpeg for
# decoder=gpu where it is installed beside the build's torch (pip install nvidia-nvjpeg). It fails when the bundle
# is over MLH_BUNDLE_LIMIT_MIB (60: the device tool carries 64 MiB with the tree).
#
# run unpacks the bundle, finds the LibTorch and CUDA libraries inside that machine's torch 2.11
# Python package, and within 530 s (each part's share: budget_* below and in the checks.json) writes under $OUT (default
# ./device-out):
#   summary.txt       GPU, the cuda tests (on two ranks too where two GPUs and mpirun are there), the
#                     bench table with host syncs per step, and the mini run, as printed; each part's
#                     result line is appended the moment it ends, so a killed run keeps the parts done
#   cuda_tests.xml    the `cuda` tests (GoogleTest XML)
#   bench.json        every bench case that the workloads' checks.json declare (workloads/<folder>/,
#                     read through launch/workload_checks.py): each workload's model at its sizes and
#                     precisions, and loaders alone (ResNet-50's with decoder=gpu, on a small
#                     generated folder: nvJPEG's images/s, or the CPU's after its note)
#   <workload>_result.txt   the MLPerf log of each mini run to target on the GPU that a checks.json asks
#   <workload>_result.json  for (device_check_mini_run_budget_s), and its record
# MLH_DEVICE=cpu and MLH_QUICK=1 run the same steps on a CPU at small sizes (how the run half is
# exercised on a machine without a GPU).
set -uo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bundle_dir="$here/.device-bundle"
mode="${1:-run}"

die() { echo "device_check: $*" >&2; exit 2; }

# The libraries the binaries need that the GPU machine provides itself: LibTorch and CUDA (inside
# its torch package), the C and C++ runtimes.
provided_there='/torch/lib/|/nvidia/|libc[.]so|libm[.]so|libdl[.]so|librt[.]so|libpthread[.]so|ld-linux|libstdc[+][+]|libgcc_s|linux-vdso|libcuda[.]so'

pack() {
  local build="${1:-${MLH_BUILD_DIR:-$here/build-cuda}}"
  [[ "$build" = /* ]] || build="$here/$build"
  if [[ ! -x "$build/launch/mlharness" || ! -x "$build/tests/cuda/mlh_cuda_tests" ]]; then
    MLH_BUILD_DIR="$build" bash "$here/launch/setup.sh" --build --cuda || die "the CUDA build failed"
  fi
  grep -q '^MLH_WITH_CUDA:BOOL=ON' "$build/CMakeCache.txt" || die "$build is not a CUDA build (launch/setup.sh --cuda)"
  local stage
  stage="$(mktemp -d)"
  trap 'rm -rf "$stage"' RETURN
  mkdir -p "$stage/bin" "$stage/lib" "$stage/usr/lib/x86_64-linux-gnu" "$stage/usr/share"
  cp "$build/launch/mlharness" "$build/tests/cuda/mlh_cuda_tests" "$stage/bin/"
  # OpenMPI finds its plugins and help texts under OPAL_PREFIX, as installed under /usr.
  local ompi_lib=/usr/lib/x86_64-linux-gnu/openmpi
  cp -a "$ompi_lib" "$stage/usr/lib/x86_64-linux-gnu/"
  cp -a /usr/share/openmpi "$stage/usr/share/"
  local files=("$stage/bin/mlharness" "$stage/bin/mlh_cuda_tests")
  local libraries
  libraries="$(ldd "${files[@]}" | awk '$2 == "=>" && $3 ~ /^\// {print $3}' | grep -Ev "$provided_there" | sort -u)"
  local missing
  missing="$(ldd "${files[@]}" | grep 'not found' | grep -Ev "$provided_there" || true)"
  [[ -z "$missing" ]] || die "libraries not found here: $missing"
  for library in $libraries; do cp -L "$library" "$stage/lib/"; done
  # decoder=gpu's nvJPEG, loaded at run time (so ldd does not list it), from beside the build's torch.
  local site_packages nvjpeg
  site_packages="$(sed -n 's/^Torch_DIR:PATH=//p' "$build/CMakeCache.txt")/../../../.."
  nvjpeg="$(ls "$site_packages"/nvidia/cu13/lib/libnvjpeg.so.* "$site_packages"/nvidia/nvjpeg/lib/libnvjpeg.so.* 2>/dev/null | head -1)"
  if [[ -n "$nvjpeg" ]]; then
    cp -L "$nvjpeg" "$stage/lib/"
  else
    echo "device_check: no libnvjpeg beside the build's torch (pip install nvidia-nvjpeg there): decoder=gpu falls back to the CPU unless the GPU machine has one"
  fi
  # The plugins' own libraries where they resolve here (a plugin whose library is missing there is
  # skipped by OpenMPI; the ones a single rank uses need none beyond these).
  for library in $(ldd "$stage"/usr/lib/x86_64-linux-gnu/openmpi/lib/openmpi3/mca_{ess_singleton,pmix_isolated,pml_ob1,btl_self,btl_vader,coll_basic,coll_tuned,coll_libnbc}.so 2>/dev/null |
                   awk '$2 == "=>" && $3 ~ /^\// {print $3}' | grep -Ev "$provided_there" | sort -u); do
    [[ -e "$stage/lib/$(basename "$library")" ]] || cp -L "$library" "$stage/lib/"
  done
  rm -rf "$bundle_dir"
  mkdir -p "$bundle_dir"
  tar -C "$stage" -cf - . | xz -T2 "-${MLH_BUNDLE_XZ_LEVEL:-6}" >"$bundle_dir/bundle.tar.xz" || die "packing failed"
  local size_mib=$(( $(stat -c %s "$bundle_dir/bundle.tar.xz") / 1048576 ))
  echo "device_check: $bundle_dir/bundle.tar.xz: $size_mib MiB ($(echo "$libraries" | wc -w) libraries)"
  (( size_mib <= ${MLH_BUNDLE_LIMIT_MIB:-60} )) || die "the bundle is $size_mib MiB, over MLH_BUNDLE_LIMIT_MIB=${MLH_BUNDLE_LIMIT_MIB:-60}"
  echo "device_check: on the GPU machine: bash launch/device_check.sh run   (carry .device-bundle)"
}

# Unpacks the bundle and points the loader at it and at the torch package's libraries.
unpack() {
  [[ -f "$bundle_dir/bundle.tar.xz" ]] || die "no $bundle_dir/bundle.tar.xz: run 'bash launch/device_check.sh pack' where the CUDA build is"
  root="$(mktemp -d /tmp/mlh-bundle.XXXXXX)"
  tar -C "$root" -xJf "$bundle_dir/bundle.tar.xz" || die "cannot unpack the bundle"
  local python="${MLH_TORCH_PYTHON:-python3}"
  local torch_dir
  torch_dir="$("$python" -c 'import os, torch; print(os.path.dirname(torch.__file__))' 2>/dev/null)" ||
    die "$python cannot import torch (set MLH_TORCH_PYTHON to a Python with torch 2.11)"
  local nvidia_dirs
  nvidia_dirs="$(find "$torch_dir/../nvidia" -maxdepth 3 -type d -name lib 2>/dev/null | tr '\n' ':')"
  export LD_LIBRARY_PATH="$root/lib:$torch_dir/lib:${nvidia_dirs}${LD_LIBRARY_PATH:-}"
  export OPAL_PREFIX="$root/usr"
  export OMPI_MCA_ess_singleton_isolated=1            # one rank, no mpirun daemon
  export OMPI_MCA_mca_base_component_show_load_errors=0
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
  mlharness="$root/bin/mlharness"
  if ldd "$mlharness" | grep -q 'not found'; then
    ldd "$mlharness" | grep 'not found' >&2
    die "the bundle's mlharness misses libraries on this machine"
  fi
}

# The time budget of `run`, in seconds: it must end inside one 600 s device command with room to
# spare. Each part has its own share, and no part may run past the whole budget's end.
budget_total_s=530          # everything, from the start of run
budget_cuda_tests_s=90      # the cuda tests on one rank
budget_two_rank_tests_s=60  # the two-rank cuda tests (only where two GPUs are visible)
# The bench cases and the mini runs, and each one's share: what every workload folder's checks.json
# declares (launch/workload_checks.py), as lines workload|config|precisions|batch sizes|flags|seconds
# and workload|seconds.
workload_checks() { python3 "$here/launch/workload_checks.py" "$@" || die "cannot read the workloads' checks.json"; }

# A part's timeout: its share, cut to what is left of the whole budget (at least 1 s). On a CPU
# (MLH_DEVICE=cpu: the run half exercised without a GPU, on a machine that others may share) the
# shares and the whole are three times as long: no device command bounds it.
part_timeout() {
  local share=$(($1 * cpu_slowdown)) left=$((budget_total_s * cpu_slowdown - SECONDS))
  ((left < 1)) && left=1
  echo $((share < left ? share : left))
}

# Appends one part's result to the summary the moment it ends, so a run killed later keeps it.
record_part() {
  local part="$1" status="$2" started="$3"
  local verdict=passed
  case "$status" in
    0) ;;
    77) verdict=skipped ;;
    124 | 137) verdict="timed out" ;;
    *) verdict="failed (exit $status)" ;;
  esac
  echo "== result: $part: $verdict in $((SECONDS - started)) s (budget used: $SECONDS of $((budget_total_s * cpu_slowdown)) s)" >>"$summary"
  echo "== result: $part: $verdict in $((SECONDS - started)) s"
}

# Host syncs per training step, per bench case, from bench JSON files: printed, and a failure where
# any case has more than 0 (bench on CUDA measures them; a case without the field was not measured).
host_syncs_report() {
  python3 - "$@" <<'PYTHON'
import json, sys
failed = False
for path in sys.argv[1:]:
    report = json.load(open(path))
    for case in report.get("cases", []):
        syncs = case.get("host_syncs_per_step", report.get("host_syncs_per_step"))
        name = "%s %s %s batch %s" % (report.get("workload"), case.get("mode", ""), case.get("precision"),
                                      case.get("batch_size_per_rank"))
        if syncs is None:
            print("  %s: host syncs per step not measured" % name)
        else:
            print("  %s: %g host syncs per step%s" % (name, syncs, "  <- wanted 0" if syncs > 0 else ""))
            failed = failed or syncs > 0
sys.exit(1 if failed else 0)
PYTHON
}

run() {
  SECONDS=0
  local out="${OUT:-$here/device-out}"
  mkdir -p "$out"
  summary="$out/summary.txt"
  local device="${MLH_DEVICE:-cuda}" quick="${MLH_QUICK:-0}"
  cpu_slowdown=1
  [[ $device == cpu ]] && cpu_slowdown=3
  unpack
  local work
  work="$(mktemp -d /tmp/mlh-device-check.XXXXXX)"
  {
    echo "== device check $(date -u +%Y-%m-%dT%H:%M:%SZ), device $device$([[ $quick = 1 ]] && echo ', quick sizes'), budget $budget_total_s s"
    if command -v nvidia-smi >/dev/null; then
      nvidia-smi --query-gpu=name,driver_version,memory.total,power.limit --format=csv 2>&1
    else
      echo "(no nvidia-smi on this machine)"
    fi
    echo
    echo "== cuda tests"
  } | tee "$summary"
  local failures=() started status
  started=$SECONDS
  timeout "$(part_timeout $budget_cuda_tests_s)" "$root/bin/mlh_cuda_tests" --gtest_output="xml:$out/cuda_tests.xml" 2>&1 |
    tee -a "$summary"
  status=${PIPESTATUS[0]}
  record_part "cuda tests" "$status" "$started"
  ((status == 0)) || failures+=("cuda tests")

  # Two ranks, one GPU each, where two are visible and an mpirun is at hand.
  echo | tee -a "$summary"
  echo "== cuda tests on two ranks" | tee -a "$summary"
  local gpus
  gpus="$("$root/bin/mlh_cuda_tests" --visible-gpus 2>/dev/null || echo 0)"
  started=$SECONDS
  if ((gpus < 2)); then
    echo "skipped: they need two GPUs; $gpus visible" | tee -a "$summary"
    status=77
  elif ! command -v mpirun >/dev/null; then
    echo "skipped: $gpus GPUs but no mpirun on this machine" | tee -a "$summary"
    status=77
  else
    timeout "$(part_timeout $budget_two_rank_tests_s)" mpirun --allow-run-as-root --oversubscribe -np 2 \
      -x LD_LIBRARY_PATH -x OPAL_PREFIX "$root/bin/mlh_cuda_tests" --gtest_filter='CudaTwoRanks.*' 2>&1 | tee -a "$summary"
    status=${PIPESTATUS[0]}
  fi
  record_part "cuda tests on two ranks" "$status" "$started"
  ((status == 0 || status == 77)) || failures+=("cuda tests on two ranks")

  # The bench table, each case's JSON merged.
  local cases sizes=full
  [[ $quick = 1 ]] && sizes=quick
  mapfile -t cases < <(workload_checks bench-cases "$sizes")
  ((${#cases[@]})) || failures+=("no bench cases in the workloads' checks.json")
  echo | tee -a "$summary"
  echo "== bench ($device)" | tee -a "$summary"
  local jsons=() i=0
  for case in "${cases[@]}"; do
    IFS='|' read -r workload config precision batches flags share <<<"$case"
    i=$((i + 1))
    local config_flag=()
    [[ -n "$config" ]] && config_flag=(--config "$config")
    started=$SECONDS
    # shellcheck disable=SC2086
    timeout "$(part_timeout "$share")" "$mlharness" bench --workload "$workload" "${config_flag[@]}" --device "$device" \
      --precision "$precision" --batch-sizes "$batches" $flags --data-dir "$work/data" \
      --json "$work/bench_$i.json" 2>&1 | grep -v '^wrote ' | tee -a "$summary"
    status=${PIPESTATUS[0]}
    if [[ -f "$work/bench_$i.json" ]]; then
      jsons+=("$work/bench_$i.json")
      host_syncs_report "$work/bench_$i.json" | tee -a "$summary"
      ((${PIPESTATUS[0]} == 0)) || { status=1; echo "host syncs inside the training step" | tee -a "$summary"; }
    else
      ((status == 0)) && status=1
    fi
    record_part "bench $workload" "$status" "$started"
    ((status == 0)) || failures+=("bench $workload")
  done
  if ((${#jsons[@]})); then
    python3 -c 'import json, sys; json.dump([json.load(open(p)) for p in sys.argv[2:]], open(sys.argv[1], "w"), indent=1)' \
      "$out/bench.json" "${jsons[@]}" || cat "${jsons[@]}" >"$out/bench.json"
  fi

  local mini_runs
  mapfile -t mini_runs < <(workload_checks mini-runs)
  for mini_run in "${mini_runs[@]}"; do
    IFS='|' read -r workload share <<<"$mini_run"
    echo | tee -a "$summary"
    echo "== $workload mini to its target ($device)" | tee -a "$summary"
    started=$SECONDS
    timeout "$(part_timeout "$share")" "$mlharness" --workload "$workload" --config mini --seed 1 --device "$device" \
      --out "$work/results_$workload" --data-dir "$work/data" 2>&1 | tee -a "$summary"
    status=${PIPESTATUS[0]}
    record_part "$workload mini run" "$status" "$started"
    ((status == 0)) || failures+=("$workload mini run (exit $status)")
    local log
    log="$(find "$work/results_$workload" -name 'result_*.txt' 2>/dev/null | head -1)"
    if [[ -n "$log" ]]; then
      cp "$log" "$out/${workload}_result.txt"
      cp "${log%.txt}.json" "$out/${workload}_result.json" 2>/dev/null
    fi
  done
  echo "== done in $SECONDS s; results under $out" | tee -a "$summary"
  ((${#failures[@]} == 0)) || echo "== failed: ${failures[*]}" | tee -a "$summary"
  rm -rf "$work" "$root"
  ((${#failures[@]} == 0))
}

case "$mode" in
  pack) shift; pack "$@" ;;
  run) run ;;
  *) die "usage: device_check.sh pack [BUILD_DIR] | run" ;;
esac
