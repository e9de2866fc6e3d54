// MINIMUM: elementwise minimum with broadcasting (see internal/maximum_minimum.h).
#include <memory>

#include "src/kernels/cpu/internal/maximum_minimum.h"
#include "src/kernels/cpu/kernels.h"

namespace relite::cpu {

StatusOr<std::unique_ptr<Kernel>> CreateMinimum(const Node&) {
  return std::unique_ptr<Kernel>(std::make_unique<MaximumMinimumKernel<MinimumOp>>());
}

}  // namespace relite::cpu
