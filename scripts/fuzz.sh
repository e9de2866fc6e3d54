#!/usr/bin/env bash
# Runs the libFuzzer targets (built by the sanitizer preset, clang + ASan +
# UBSan: scripts/setup.sh --asan) for a fixed time each, e.g.
#   scripts/fuzz.sh                 60 s per target (what CI runs)
#   scripts/fuzz.sh 3600            an hour per target
#   scripts/fuzz.sh 600 invoke gpu  only some targets (load, invoke, gpu)
# The seed corpus is written fresh (relite_fuzz_seeds, the real models in
# RELITE_MODELS_DIR, default ../shared/models, and for the load target the
# zoo architectures); what the fuzzers add is kept in build/fuzz/corpus-*.
# A crash, sanitizer report, timeout (10 s per input, 40 s on gpu) or out-of-memory input
# fails the run; the input is saved under build/fuzz/artifacts/.
# RELITE_FUZZ_PARALLEL=1 runs the targets at the same time (one core each).
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-60}"
shift || true
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then targets=(load invoke gpu); fi
bin=build/asan
models="${RELITE_MODELS_DIR:-../shared/models}"
out=build/fuzz
cmake --build --preset asan --target relite_load_fuzzer relite_invoke_fuzzer relite_gpu_fuzzer relite_fuzz_seeds relite_cli >/dev/null

seeds="$out/seeds"
rm -rf "$seeds"
mkdir -p "$seeds/all" "$seeds/small" "$seeds/zoo" "$out/artifacts"
"$bin/fuzz/relite_fuzz_seeds" "$seeds/all" >/dev/null
if [ -d "$models" ]; then
  cp "$models"/*.tflite "$seeds/all/"
else
  echo "fuzz: $models not found (set RELITE_MODELS_DIR); seeding from the generated models only" >&2
fi
# invoke/gpu: models small enough to run many times a second under ASan.
find "$seeds/all" -name '*.tflite' -size -600k -exec cp {} "$seeds/small/" \;
for z in mobilenet_v1 mobilenet_v2 ssd_mobilenet_v1 posenet deeplab_v3; do
  "$bin/relite" zoo "$z" --weights float16 --out "$seeds/zoo/$z.tflite" >/dev/null
done

# PoCL's kernel cache fsyncs every compiled kernel: on a loaded disk that alone
# passed the 10 s per-input timeout (seen in a 1-h gpu run). Keep it in memory.
if [ -z "${POCL_CACHE_DIR:-}" ]; then
  if [ -d /dev/shm ] && [ -w /dev/shm ]; then export POCL_CACHE_DIR="/dev/shm/relite-fuzz-pocl-$(id -u)"; else export POCL_CACHE_DIR="$out/pocl-cache"; fi
fi
export ASAN_OPTIONS="detect_leaks=1:allocator_may_return_null=1"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
export LSAN_OPTIONS="suppressions=$(pwd)/tests/lsan.supp:print_suppressions=0"
run_target() {
  local t="$1" max_len dirs corpus
  case "$t" in
    load) dirs=("$seeds/all" "$seeds/zoo"); max_len=20000000 ;;
    invoke|gpu) dirs=("$seeds/small"); max_len=700000 ;;
    *) echo "fuzz: unknown target '$t' (load, invoke, gpu)" >&2; return 2 ;;
  esac
  corpus="$out/corpus-$t"
  mkdir -p "$corpus"
  echo "fuzz: $t for ${seconds} s"
  # gpu: no leak checks. clang 14's LeakSanitizer crashes in its own tracer
  # ("Tracer caught signal 11", a bogus dynamic-TLS range) once PoCL has
  # dlopen'ed compiled kernels; seen after ~2,000 executions of a 15-min run.
  # ASan and UBSan stay on; leaks are checked by the CPU targets and the
  # sanitizer test suite.
  local leaks=1
  [ "$t" = gpu ] && leaks=0
  # A hang is an input over 10 s, except on the GPU target: the first run of
  # a model there includes PoCL compiling its kernels cold, 13-17 s for
  # mobilenet_v1_0.25_128_quant under ASan on a 2-core Intel Xeon VM (the
  # same before and after session 12's kernel changes).
  local timeout=10
  [ "$t" = gpu ] && timeout=40
  if ! ASAN_OPTIONS="$ASAN_OPTIONS:detect_leaks=$leaks" "$bin/fuzz/relite_${t}_fuzzer" -detect_leaks="$leaks" \
       -max_total_time="$seconds" -timeout="$timeout" -rss_limit_mb=4096 -max_len="$max_len" \
       -print_final_stats=1 -artifact_prefix="$out/artifacts/$t-" "$corpus" "${dirs[@]}" >"$out/$t.log" 2>&1; then
    echo "fuzz: $t FAILED; see $out/$t.log and $out/artifacts/" >&2
    grep -E -A12 "runtime error|ERROR: |SUMMARY|==[0-9]+==" "$out/$t.log" | head -n 80 >&2 || tail -n 30 "$out/$t.log" >&2
    return 1
  fi
  echo "fuzz: $t: $(grep -E "DONE" "$out/$t.log" | tail -n 1)"
}

status=0
if [ "${RELITE_FUZZ_PARALLEL:-0}" = 1 ]; then
  pids=()
  for t in "${targets[@]}"; do run_target "$t" & pids+=($!); done
  for p in "${pids[@]}"; do wait "$p" || status=1; done
else
  for t in "${targets[@]}"; do run_target "$t" || status=1; done
fi
exit $status
