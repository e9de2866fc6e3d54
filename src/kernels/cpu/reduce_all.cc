// REDUCE_ALL: logical and over the axes of a constant axis tensor (true for
// an empty reduction).
#include <memory>

#include "src/kernels/cpu/internal/bool_reduce.h"
#include "src/kernels/cpu/kernels.h"

namespace relite::cpu {

StatusOr<std::unique_ptr<Kernel>> CreateReduceAll(const Node& node) {
  return std::unique_ptr<Kernel>(std::make_unique<BoolReduceKernel<true>>(node));
}

}  // namespace relite::cpu
