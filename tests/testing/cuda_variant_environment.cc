// Linked into every GPU delegate test: under RELITE_GPU_BACKEND=cuda (the
// tests' CUDA variants, tests/CMakeLists.txt) the whole executable is skipped
// with the reason where the CUDA backend cannot start (no NVIDIA GPU or
// driver), unless RELITE_REQUIRE_CUDA=1 makes that a failure. The same test
// bodies then run on CUDA wherever it can.
#include <cstdlib>
#include <string>

#include <gtest/gtest.h>

#include "relite/gpu_delegate.h"

namespace relite::testing {
namespace {

class CudaVariantEnvironment final : public ::testing::Environment {
 public:
  void SetUp() override {
    const char* backend = std::getenv("RELITE_GPU_BACKEND");
    if (backend == nullptr || std::string(backend) != "cuda") return;
    GpuDelegateOptions options;
    options.backend = GpuBackend::kCuda;
    auto gpu = CreateGpuDelegate(options);
    if (gpu.ok()) return;
    const char* required = std::getenv("RELITE_REQUIRE_CUDA");
    if (required != nullptr && std::string(required) == "1") {
      FAIL() << "RELITE_REQUIRE_CUDA=1 but the CUDA backend is unavailable: " << gpu.status().ToString();
    }
    GTEST_SKIP() << "CUDA variant skipped: " << gpu.status().ToString();
  }
};

[[maybe_unused]] ::testing::Environment* const kEnvironment =
    ::testing::AddGlobalTestEnvironment(new CudaVariantEnvironment);

}  // namespace
}  // namespace relite::testing
