#!/usr/bin/env bash
# CTest: relite_mutant_replay over structure-aware mutants of the real models
# and the seed corpus, on the CPU (30 per model, 10 under qemu), through the GPU delegate
# (5 per model; skipped without OpenCL unless RELITE_REQUIRE_GPU=1) and
# through the oneDNN delegate, forced (5 per model; where oneDNN is absent it
# declines every node and the mutants run on the CPU).
#   mutant_replay_test.sh SEEDS_BIN REPLAY_BIN DEFAULT_MODELS_DIR WORK_DIR
set -euo pipefail
seeds_bin="$1" replay="$2" models="${RELITE_MODELS_DIR:-$3}" work="$4"
if [ ! -d "$models" ]; then
  if [ "${RELITE_REQUIRE_MODELS:-0}" = 1 ]; then echo "models folder $models is missing" >&2; exit 1; fi
  echo "models folder $models not found; skipping"; exit 77
fi
"$seeds_bin" "$work" >/dev/null
# Under qemu (RELITE_TEST_EMULATED=1, scripts/test.sh aarch64) 10 CPU mutants
# a model: 30 took 200 s there.
cpu_mutants=30
[ "${RELITE_TEST_EMULATED:-0}" = 1 ] && cpu_mutants=10
"$replay" --mutants "$cpu_mutants" --timeout-s 60 "$models" "$work"
if "$replay" --mutants 5 --timeout-s 60 --delegate gpu "$models" "$work"; then
  :
else
  code=$?
  if [ "$code" = 1 ] && [ "${RELITE_REQUIRE_GPU:-0}" != 1 ] && ! "$replay" --mutants 0 --delegate gpu "$work" >/dev/null 2>&1; then
    echo "no GPU delegate on this machine; the GPU replay is skipped"
  else
    exit "$code"
  fi
fi
"$replay" --mutants 5 --timeout-s 60 --delegate onednn "$models" "$work"
