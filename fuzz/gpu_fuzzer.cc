// libFuzzer target (c): load + allocate + invoke through the GPU delegate
// (PoCL on a machine without a GPU); nodes it declines run on the CPU.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>

#include "fuzz/fuzz_run.h"
#include "fuzz/model_mutator.h"
#include "relite/gpu_delegate.h"

extern "C" size_t LLVMFuzzerMutate(uint8_t* data, size_t size, size_t max_size);

namespace {

relite::Delegate* GpuDelegate() {
  static std::unique_ptr<relite::Delegate> delegate = [] {
    auto d = relite::CreateGpuDelegate({});
    if (!d.ok()) {
      std::fprintf(stderr, "gpu_fuzzer: no GPU delegate: %s\n", d.status().ToString().c_str());
      std::exit(1);  // a GPU fuzz run without a GPU would test nothing
    }
    return std::move(d).value();
  }();
  return delegate.get();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  relite::fuzz::RunConfig config;
  config.limits = relite::fuzz::FuzzLimits();
  config.delegate = GpuDelegate();
  (void)relite::fuzz::RunModel(data, size, config);
  return 0;
}

extern "C" size_t LLVMFuzzerCustomMutator(uint8_t* data, size_t size, size_t max_size, unsigned int seed) {
  if (seed % 8 != 0 && relite::fuzz::Mutate(data, size, seed)) return size;
  return LLVMFuzzerMutate(data, size, max_size);
}
