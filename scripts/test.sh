#!/usr/bin/env bash
# Runs the test suite of a built preset (default: release), e.g.
#   scripts/test.sh            release build
#   scripts/test.sh asan       AddressSanitizer + UBSan build
#   scripts/test.sh aarch64    the AArch64 cross build, under qemu-aarch64,
#                              twice: QEMU_CPU=max (dotprod, i8mm, ...) and
#                              cortex-a53 (plain Armv8.0; without the
#                              slow_emulated tests)
# Model tests read RELITE_MODELS_DIR (default ../shared/models) and skip with a
# reason when it is absent, unless RELITE_REQUIRE_MODELS=1.
set -euo pipefail
cd "$(dirname "$0")/.."
preset="${1:-release}"
cmake --build --preset "$preset"
if [ "$preset" != aarch64 ]; then
  ctest --preset "$preset" -j "$(nproc)"
  exit 0
fi
# qemu-user has no OpenCL: no arm64 ICD is installed, so the GPU delegate
# tests skip there (with their reason) even where CI requires the GPU for
# the native build. The Python and LiteRT tests are not in a cross build
# (tests/CMakeLists.txt says why).
# The tests labelled slow_emulated (tests/CMakeLists.txt) run on the first
# CPU model only: they are most of the time under qemu.
export RELITE_REQUIRE_GPU=0
for cpu in max cortex-a53; do
  echo "test: aarch64 under qemu-aarch64, QEMU_CPU=$cpu"
  start=$SECONDS
  if [ "$cpu" = max ]; then
    QEMU_CPU="$cpu" ctest --preset aarch64 -j "$(nproc)"
  else
    QEMU_CPU="$cpu" ctest --preset aarch64 -j "$(nproc)" -LE slow_emulated
  fi
  echo "test: aarch64 QEMU_CPU=$cpu took $((SECONDS - start)) s"
done
