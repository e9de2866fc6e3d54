// RELU_N1_TO_1: out = min(max(-1, x), 1).
#include <algorithm>
#include <memory>

#include "src/kernels/cpu/internal/elementwise.h"
#include "src/kernels/cpu/kernels.h"

namespace relite::cpu {

StatusOr<std::unique_ptr<Kernel>> CreateReluN1To1(const Node&) {
  return MakeFloatUnaryKernel([](float x) { return std::min(std::max(-1.0f, x), 1.0f); }, kDefaultMinChunk);
}

}  // namespace relite::cpu
