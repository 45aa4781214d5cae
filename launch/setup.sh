#!/usr/bin/env bash
# One command on a fresh Debian 12 machine: installs what mlharness needs (apt), builds it, and runs
# the main job on its embedded default (NCF mini, CPU, synthetic MovieLens) to its target.
#   bash launch/setup.sh            install + build + the NCF mini run
#   bash launch/setup.sh --build    install + build only (what launch/test.sh uses)
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(g++ cmake make ccache pkg-config libtorch-dev libopenblas0-pthread libopenmpi-dev openmpi-bin
  libyaml-cpp-dev libboost-program-options-dev libprotobuf-dev protobuf-compiler libgtest-dev
  libgmock-dev nlohmann-json3-dev zlib1g-dev libopencv-dev libsentencepiece-dev libicu-dev
  dataset-fashion-mnist chromium)

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

build_dir=${MLH_BUILD_DIR:-build}
cmake -S . -B "$build_dir" -DCMAKE_BUILD_TYPE=Release
cmake --build "$build_dir" -j "$(nproc)"

if [ "${1:-}" = "--build" ]; then exit 0; fi
echo
echo "== the embedded default: NCF mini on CPU =="
"$build_dir/launch/mlharness" --workload ncf --config mini --seed 1
