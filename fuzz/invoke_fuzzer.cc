// libFuzzer target (b): load + allocate + invoke on the CPU, under the
// fuzzing resource limits (small models; the rest is refused with an error).
#include <cstddef>
#include <cstdint>

#include "fuzz/fuzz_run.h"
#include "fuzz/model_mutator.h"

extern "C" size_t LLVMFuzzerMutate(uint8_t* data, size_t size, size_t max_size);

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  relite::fuzz::RunConfig config;
  config.limits = relite::fuzz::FuzzLimits();
  (void)relite::fuzz::RunModel(data, size, config);
  return 0;
}

extern "C" size_t LLVMFuzzerCustomMutator(uint8_t* data, size_t size, size_t max_size, unsigned int seed) {
  if (seed % 8 != 0 && relite::fuzz::Mutate(data, size, seed)) return size;
  return LLVMFuzzerMutate(data, size, max_size);
}
