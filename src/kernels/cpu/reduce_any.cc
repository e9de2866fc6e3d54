// REDUCE_ANY: logical or over the axes of a constant axis tensor (false for
// an empty reduction).
#include <memory>

#include "src/kernels/cpu/internal/bool_reduce.h"
#include "src/kernels/cpu/kernels.h"

namespace relite::cpu {

StatusOr<std::unique_ptr<Kernel>> CreateReduceAny(const Node& node) {
  return std::unique_ptr<Kernel>(std::make_unique<BoolReduceKernel<false>>(node));
}

}  // namespace relite::cpu
