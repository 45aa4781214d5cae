#!/usr/bin/env bash
# One command on a fresh Debian 12 machine: installs what mlharness needs (apt), builds it, and runs
# the main job on its embedded default (NCF mini, CPU, synthetic MovieLens) to its target.
#   bash launch/setup.sh            install + build + the NCF mini run
#   bash launch/setup.sh --build    install + build only (what launch/test.sh uses)
#   bash launch/setup.sh --cuda     the same against PyPI's CUDA LibTorch (torch==2.11.0, CUDA 13.0,
#                                   about 4.6 GB) in a virtual environment outside the clone
#                                   (MLH_TORCH_VENV, default ~/.cache/mlharness/torch-2.11), built in
#                                   build-cuda; the binary also starts where there is no GPU or driver
# MLH_BUILD_DIR sets the build folder; MLH_BUILD_TARGETS (space-separated) builds those targets only
# (launch/test.sh builds in build-cuda what it runs there).
set -euo pipefail
cd "$(dirname "$0")/.."

build_only=0
cuda=0
for arg in "$@"; do
  case "$arg" in
    --build) build_only=1 ;;
    --cuda) cuda=1 ;;
    *) echo "setup.sh: unknown option '$arg' (--build, --cuda)" >&2; exit 2 ;;
  esac
done

packages=(g++ cmake make ccache pkg-config libtorch-dev libopenblas0-pthread libopenmpi-dev openmpi-bin
  libyaml-cpp-dev libboost-program-options-dev libprotobuf-dev protobuf-compiler libgtest-dev
  libgmock-dev nlohmann-json3-dev zlib1g-dev libopencv-dev libjpeg-dev libsentencepiece-dev libicu-dev
  dataset-fashion-mnist chromium python3-torch python3-torchvision)
[ "$cuda" = 1 ] && packages+=(python3-venv)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "installing: ${missing[*]}"
  sudo_cmd=""
  [ "$(id -u)" -ne 0 ] && sudo_cmd="sudo"
  $sudo_cmd apt-get update -q
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

torch_option=()
if [ "$cuda" = 1 ]; then
  torch_version=2.11.0
  home=${HOME:-$(getent passwd "$(id -u)" | cut -d: -f6)}
  venv=${MLH_TORCH_VENV:-$home/.cache/mlharness/torch-2.11}
  if ! "$venv/bin/python" -c "import torch, sys; sys.exit(torch.__version__.split('+')[0] != '$torch_version')" 2>/dev/null; then
    echo "installing torch==$torch_version into $venv"
    /usr/bin/python3 -m venv "$venv"  # Debian's Python and its python3-venv
    "$venv/bin/pip" install --progress-bar off "torch==$torch_version"
  fi
  torch_option=(-DMLH_TORCH_PYTHON="$venv/bin/python")
fi

default_build_dir=build
[ "$cuda" = 1 ] && default_build_dir=build-cuda
build_dir=${MLH_BUILD_DIR:-$default_build_dir}
cmake -S . -B "$build_dir" -DCMAKE_BUILD_TYPE=Release "${torch_option[@]}"
targets=()
for target in ${MLH_BUILD_TARGETS:-}; do targets+=(--target "$target"); done
cmake --build "$build_dir" -j "$(nproc)" "${targets[@]}"

if [ "$build_only" = 1 ]; then exit 0; fi
echo
echo "== the embedded default: NCF mini on CPU =="
"$build_dir/launch/mlharness" --workload ncf --config mini --seed 1
