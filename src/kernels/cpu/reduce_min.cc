// REDUCE_MIN over the axes of a constant axis tensor: a value wins only when
// it compares less, so NaNs are skipped (as REDUCE_MAX does, and TFLite), and
// an empty reduction yields the type's largest value.
#include <memory>

#include "src/kernels/cpu/internal/simple_reduce.h"
#include "src/kernels/cpu/kernels.h"

namespace relite::cpu {

StatusOr<std::unique_ptr<Kernel>> CreateReduceMin(const Node& node) {
  return std::unique_ptr<Kernel>(std::make_unique<TypedReduceKernel<reduce_internal::MinReducer, float, int32_t, int64_t>>(
      node, "REDUCE_MIN", "float32, int32, int64"));
}

}  // namespace relite::cpu
