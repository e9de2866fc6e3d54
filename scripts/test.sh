#!/usr/bin/env bash
# Runs the test suite of a built preset (default: release), e.g.
#   scripts/test.sh            release build
#   scripts/test.sh asan       AddressSanitizer + UBSan build
#   scripts/test.sh aarch64    the AArch64 cross build, under qemu-aarch64,
#                              twice: QEMU_CPU=max (dotprod, i8mm, ...) and
#                              cortex-a53 (plain Armv8.0; without the
#                              slow_emulated tests)
#   scripts/test.sh x86-levels the release build's CLI and kernel and golden
#                              tests under qemu-x86_64 as CPUs without
#                              AVX-512 (Haswell) and without AVX (qemu64),
#                              so no level's code runs where it must not
#                              (needs qemu-user: scripts/setup.sh --aarch64)
# Model tests read RELITE_MODELS_DIR (default ../shared/models) and skip with a
# reason when it is absent, unless RELITE_REQUIRE_MODELS=1.
set -euo pipefail
cd "$(dirname "$0")/.."
preset="${1:-release}"
if [ "$preset" = x86-levels ]; then
  # The development and CI hosts have AVX2 and often AVX-512, so a kernel
  # table that ran AVX-512 code on an AVX2-only CPU passed every test there.
  # qemu's TCG (7.2) runs AVX2 but not AVX-512: each CPU model must detect
  # its level and pass the tests that compare every runnable level with
  # portable and the models with their goldens.
  command -v qemu-x86_64 > /dev/null || { echo "test: qemu-x86_64 missing: run scripts/setup.sh --aarch64"; exit 1; }
  cmake --build --preset release
  # Statically: 256- and 512-bit registers only in functions of the per-ISA
  # namespaces (relite::cpu::isa_avx2, ..., vmath_isa_*). An inline or
  # template function that an ISA file instantiates is also emitted there
  # under its own name, and the linker may keep that copy for every caller.
  leaks=$(objdump -d --no-show-raw-insn -C build/release/relite |
    awk '/^[0-9a-f]+ <.*>:$/ { fn = $0; next } /%[yz]mm/ && !(fn in seen) { seen[fn] = 1; print fn }' |
    grep -Ev 'relite::cpu::(vmath_)?isa_(avx2|avxvnni|avx512|avx512vnni)::' || true)
  if [ -n "$leaks" ]; then echo "test: AVX code outside the per-ISA namespaces:"; echo "$leaks" | head -20; exit 1; fi
  echo "test: ymm/zmm only in per-ISA functions of build/release/relite"
  model="${RELITE_MODELS_DIR:-../shared/models}/face_detection_short_range.tflite"
  for cpu_level in Haswell-v4:avx2 qemu64:portable; do
    cpu="${cpu_level%%:*}" level="${cpu_level##*:}"
    echo "test: x86-64 under qemu-x86_64 -cpu $cpu (expects level $level)"
    start=$SECONDS
    if [ -f "$model" ]; then
      line=$(qemu-x86_64 -cpu "$cpu" build/release/relite bench "$model" --runs 1 --warmup 0 | grep -m1 "^cpu kernels:")
      echo "$line"
      case "$line" in "cpu kernels:"*" $level "*) ;; *) echo "test: expected level $level"; exit 1 ;; esac
    elif [ "${RELITE_REQUIRE_MODELS:-0}" = 1 ]; then
      echo "test: $model missing (RELITE_REQUIRE_MODELS=1)"; exit 1
    else
      echo "test: skipping the CLI's level check: $model missing (set RELITE_MODELS_DIR)"
    fi
    for t in isa_variants_test cpu_isa_test golden_float_test golden_quant_test; do
      qemu-x86_64 -cpu "$cpu" "build/release/tests/$t" --gtest_brief=1
    done
    echo "test: x86-64 -cpu $cpu took $((SECONDS - start)) s"
  done
  exit 0
fi
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
# The mutant replay takes 10 mutants a model instead of 30 (tests/tools/mutant_replay_test.sh).
export RELITE_TEST_EMULATED=1
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
