#!/usr/bin/env bash
# Installs every dependency of relite from Debian packages, then configures and
# builds the release preset. The single source of truth for dependencies.
#   scripts/setup.sh            install + build (release)
#   scripts/setup.sh --asan     also build the sanitizer preset (clang: ASan +
#                               UBSan, and the libFuzzer targets; scripts/fuzz.sh)
#   scripts/setup.sh --tflite   also install LiteRT (PyPI) into build/tflite-venv
#                               for tflite_interop_test
set -euo pipefail
cd "$(dirname "$0")/.."
ASAN=0
TFLITE=0
for arg in "$@"; do
  case "$arg" in
    --asan) ASAN=1 ;;
    --tflite) TFLITE=1 ;;
    *) echo "setup: unknown option $arg (use --asan, --tflite)" >&2; exit 2 ;;
  esac
done

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
  python3 python3-venv                      # test and bench scripts; the LiteRT venv (--tflite)
)
if [ "$ASAN" = 1 ]; then
  # The sanitizer preset builds with clang: ASan/UBSan/libFuzzer runtimes,
  # and llvm-symbolizer for readable reports.
  PACKAGES+=(clang libclang-rt-14-dev llvm-14)
fi

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

# The real TFLite runtime, pinned, for checking that files relite writes load
# there (tests/tools/tflite_interop_test.py). A venv keeps it off the system.
if [ "$TFLITE" = 1 ]; then
  venv=build/tflite-venv
  if ! "$venv/bin/python" -c "import ai_edge_litert.interpreter, pytest" 2>/dev/null; then
    echo "setup: installing LiteRT into $venv"
    python3 -m venv --clear "$venv"
    "$venv/bin/pip" install -q --disable-pip-version-check "ai-edge-litert==2.3.0" "numpy==1.26.4" "pytest==8.3.4"
  fi
fi

cmake --preset release >/dev/null
cmake --build --preset release
if [ "$ASAN" = 1 ]; then
  cmake --preset asan >/dev/null
  cmake --build --preset asan
fi
echo "setup: built build/release/relite"
