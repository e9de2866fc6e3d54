// Runs a model on the CPU and through the GPU delegate with the same inputs
// and compares every output. The GPU is OpenCL: PoCL on machines without a
// GPU. Tests skip (visibly) when no OpenCL device exists, unless
// RELITE_REQUIRE_GPU=1 (set by .ci/run) makes that a failure.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "relite/gpu_delegate.h"
#include "relite/relite.h"

namespace relite::testing {

// The process's GPU delegate for `precision` (created once), or null with
// *reason set.
Delegate* SharedGpuDelegate(GpuPrecision precision, std::string* reason);
bool GpuRequired();
// The relite CLI the tests start: $RELITE_TEST_CLI (binaries carried to
// another machine), else the build's own (RELITE_CLI_PATH).
std::string CliPath();

struct GpuRunResult {
  int partitions = 0;
  int delegated = 0;
  int operations = 0;
  std::string report;
  std::vector<std::vector<float>> cpu, gpu;  // per output (bool outputs as 0/1, 8-bit ones as their codes)
};

// Builds `model` twice (CPU; GPU delegate), feeds both the same pseudo-random
// inputs (floats in [lo, hi], bools 0/1, 8-bit codes over the whole type),
// invokes, returns the outputs.
// Failures are reported with ADD_FAILURE and an empty result.
GpuRunResult RunCpuAndGpu(const std::vector<uint8_t>& model, Delegate* gpu, float lo = -1.f, float hi = 1.f,
                          uint32_t seed = 1);

// The delegation report of `model` on `gpu`, without allocating or running
// it (failures are reported with ADD_FAILURE and an empty report).
DelegationReport DelegationOf(const std::vector<uint8_t>& model, Delegate* gpu);

// |gpu - cpu| <= atol + rtol * |cpu| for every value of every output.
::testing::AssertionResult OutputsClose(const GpuRunResult& r, float atol, float rtol);

// Tolerances of the per-op tests. fp32: the bound. fp16: inputs,
// weights and every stored result are rounded to half (relative error
// 2^-11 = 4.9e-4 each); the ops' inputs are O(1) and the convolutions' weights
// are scaled by 1/sqrt(taps), so an output carries a few such roundings of
// O(1) terms plus its own: 5e-3 absolute + 5e-3 relative covers it with margin.
inline constexpr float kFp32Atol = 1e-4f, kFp32Rtol = 1e-4f;
inline constexpr float kFp16Atol = 5e-3f, kFp16Rtol = 5e-3f;

// OutputsClose with the per-op tolerances of `precision`.
inline ::testing::AssertionResult OutputsCloseAt(const GpuRunResult& r, GpuPrecision precision) {
  return precision == GpuPrecision::kFp16 ? OutputsClose(r, kFp16Atol, kFp16Rtol) : OutputsClose(r, kFp32Atol, kFp32Rtol);
}

}  // namespace relite::testing

#define RELITE_GPU_DELEGATE_OR_SKIP(var, precision)                                              \
  std::string relite_gpu_reason_;                                                                \
  ::relite::Delegate* var = ::relite::testing::SharedGpuDelegate(precision, &relite_gpu_reason_); \
  if (var == nullptr) {                                                                          \
    if (::relite::testing::GpuRequired()) FAIL() << relite_gpu_reason_ << " (RELITE_REQUIRE_GPU=1)"; \
    GTEST_SKIP() << relite_gpu_reason_;                                                          \
  }
