// LEAKY_RELU: out = x > 0 ? x : alpha * x, alpha from LeakyReluOptions
// (schema default 0 when the table is absent). Computed as
// max(x, 0) + alpha * min(x, 0), which is the same for every finite alpha and
// vectorises (the select form does not: FP math under a branch is not
// if-converted).
#include <algorithm>
#include <memory>

#include "src/core/ops/options.h"
#include "src/kernels/cpu/internal/elementwise.h"
#include "src/kernels/cpu/kernels.h"

namespace relite::cpu {

StatusOr<std::unique_ptr<Kernel>> CreateLeakyRelu(const Node& node) {
  float alpha = 0.0f;
  if (const auto* options = GetOptions<tflite::LeakyReluOptions>(node)) alpha = options->alpha();
  return MakeFloatUnaryKernel(
      [alpha](float x) { return std::max(x, 0.0f) + alpha * std::min(x, 0.0f); });
}

}  // namespace relite::cpu
