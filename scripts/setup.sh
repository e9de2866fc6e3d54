#!/usr/bin/env bash
# Installs every dependency of relite from Debian packages, then configures and
# builds the release preset. The single source of truth for dependencies.
#   scripts/setup.sh            install + build (release)
#   scripts/setup.sh --asan     also build the sanitizer preset (clang: ASan +
#                               UBSan, and the libFuzzer targets; scripts/fuzz.sh)
#   scripts/setup.sh --tflite   also install LiteRT (PyPI) into build/tflite-venv
#                               for tflite_interop_test
#   scripts/setup.sh --aarch64  also cross-build the aarch64 preset (Debian's
#                               cross g++ and arm64 multiarch libraries; its
#                               tests run under qemu-aarch64: scripts/test.sh aarch64)
set -euo pipefail
cd "$(dirname "$0")/.."
ASAN=0
TFLITE=0
AARCH64=0
for arg in "$@"; do
  case "$arg" in
    --asan) ASAN=1 ;;
    --tflite) TFLITE=1 ;;
    --aarch64) AARCH64=1 ;;
    *) echo "setup: unknown option $arg (use --asan, --tflite, --aarch64)" >&2; exit 2 ;;
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
  libdnnl-dev                               # oneDNN delegate (headers; libdnnl2 is loaded at run time)
  ocl-icd-libopencl1 pocl-opencl-icd        # an OpenCL runtime on machines without a GPU (tests, CI)
  python3 python3-venv                      # test and bench scripts; the LiteRT venv (--tflite)
)
if [ "$ASAN" = 1 ]; then
  # The sanitizer preset builds with clang: ASan/UBSan/libFuzzer runtimes,
  # and llvm-symbolizer for readable reports.
  PACKAGES+=(clang libclang-rt-14-dev llvm-14)
fi
if [ "$AARCH64" = 1 ]; then
  # The aarch64 preset (cmake/toolchain-aarch64.cmake): the cross compiler
  # and C library, qemu-user to run the tests, and the arm64 builds of what
  # CMake finds per architecture (fmt's and GTest's CMake packages, gtest's
  # static libraries, flatbuffers). Headers are shared: flatc, CLI11, stb,
  # xxhash and the OpenCL headers are the host's packages above.
  PACKAGES+=(
    g++-aarch64-linux-gnu                   # cross compiler, arm64 libc/libstdc++ in /usr/aarch64-linux-gnu
    qemu-user                               # qemu-aarch64: CTest's CMAKE_CROSSCOMPILING_EMULATOR
    libc6:arm64 libstdc++6:arm64            # the runtime the tests run on under qemu (toolchain file says why)
    libfmt-dev:arm64 libflatbuffers-dev:arm64
    libgtest-dev:arm64 libgmock-dev:arm64
  )
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
# The :arm64 packages need dpkg to know the architecture (apt-get update
# below then fetches its package lists).
if [ "$AARCH64" = 1 ] && ! dpkg --print-foreign-architectures | grep -qx arm64; then
  echo "setup: adding the arm64 architecture to dpkg"
  $SUDO dpkg --add-architecture arm64
fi
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
if [ "$AARCH64" = 1 ]; then
  cmake --preset aarch64 >/dev/null
  cmake --build --preset aarch64
  echo "setup: built build/aarch64 (aarch64; scripts/test.sh aarch64 runs its tests under qemu)"
fi
echo "setup: built build/release/relite"
