// REDUCE_PROD over the axes of a constant axis tensor, in the element type:
// float products round per step, integer products wrap. An empty reduction
// yields 1.
#include <memory>

#include "src/kernels/cpu/internal/simple_reduce.h"
#include "src/kernels/cpu/kernels.h"

namespace relite::cpu {

StatusOr<std::unique_ptr<Kernel>> CreateReduceProd(const Node& node) {
  return std::unique_ptr<Kernel>(std::make_unique<TypedReduceKernel<reduce_internal::ProdReducer, float, int32_t, int64_t>>(
      node, "REDUCE_PROD", "float32, int32, int64"));
}

}  // namespace relite::cpu
