// RELU6: out = min(max(0, x), 6).
#include <algorithm>
#include <memory>

#include "src/kernels/cpu/internal/elementwise.h"
#include "src/kernels/cpu/kernels.h"

namespace relite::cpu {

StatusOr<std::unique_ptr<Kernel>> CreateRelu6(const Node&) {
  return MakeFloatUnaryKernel([](float x) { return std::min(std::max(0.0f, x), 6.0f); }, kDefaultMinChunk);
}

}  // namespace relite::cpu
