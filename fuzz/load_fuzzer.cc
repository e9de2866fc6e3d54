// libFuzzer target (a): load + verify, and resolving every operator to a
// kernel (the factories parse each op's options).
#include <cstddef>
#include <cstdint>

#include "fuzz/fuzz_run.h"
#include "fuzz/model_mutator.h"

extern "C" size_t LLVMFuzzerMutate(uint8_t* data, size_t size, size_t max_size);

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  relite::fuzz::RunConfig config;
  config.limits = relite::fuzz::FuzzLimits();
  config.invoke = false;
  auto model = relite::Model::FromBuffer(data, size, "fuzz.tflite");
  if (!model.ok()) return 0;
  relite::BuiltinOpResolver resolver;
  (void)relite::InterpreterBuilder(**model, resolver).SetNumThreads(1).SetResourceLimits(config.limits).Build();
  return 0;
}

// Seven in eight mutations rewrite fields inside the FlatBuffer (shapes,
// indices, options, quantization); the rest are libFuzzer's byte-level ones.
extern "C" size_t LLVMFuzzerCustomMutator(uint8_t* data, size_t size, size_t max_size, unsigned int seed) {
  if (seed % 8 != 0 && relite::fuzz::Mutate(data, size, seed)) return size;
  return LLVMFuzzerMutate(data, size, max_size);
}
