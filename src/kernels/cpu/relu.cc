// RELU: out = max(0, x) (NaN gives 0, as std::max(0, x) does).
#include <algorithm>
#include <memory>

#include "src/kernels/cpu/internal/elementwise.h"
#include "src/kernels/cpu/kernels.h"

namespace relite::cpu {

StatusOr<std::unique_ptr<Kernel>> CreateRelu(const Node&) {
  return MakeFloatUnaryKernel([](float x) { return std::max(0.0f, x); }, kDefaultMinChunk);
}

}  // namespace relite::cpu
