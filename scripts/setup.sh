#!/usr/bin/env bash
# Installs every dependency of relite from Debian packages, then configures and
# builds the release preset. The single source of truth for dependencies.
#   scripts/setup.sh            install + build (release)
#   scripts/setup.sh --asan     also build the sanitizer preset
set -euo pipefail
cd "$(dirname "$0")/.."

PACKAGES=(
  build-essential cmake ninja-build pkg-config
  flatbuffers-compiler libflatbuffers-dev   # .tflite reader generated from schema/tflite.fbs
  libfmt-dev                                # error message formatting (header-only use)
  libgtest-dev libgmock-dev                 # tests
  libbenchmark-dev                          # bench/
  libcli11-dev                              # relite CLI
  libstb-dev                                # image decoding for `relite run --input x.jpg`
  libxxhash-dev                             # content hashes (kernel cache, model tokens)
  opencl-c-headers                          # GPU delegate (OpenCL is loaded at run time)
  ocl-icd-libopencl1 pocl-opencl-icd        # an OpenCL runtime on machines without a GPU (tests, CI)
  python3                                   # test and bench scripts
)

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

cmake --preset release >/dev/null
cmake --build --preset release
if [ "${1:-}" = "--asan" ]; then
  cmake --preset asan >/dev/null
  cmake --build --preset asan
fi
echo "setup: built build/release/relite"
