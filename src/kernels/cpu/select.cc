// SELECT: out = condition ? x : y (see internal/select.h for the shapes).
#include <memory>

#include "src/kernels/cpu/internal/select.h"
#include "src/kernels/cpu/kernels.h"

namespace relite::cpu {

StatusOr<std::unique_ptr<Kernel>> CreateSelect(const Node&) {
  return std::unique_ptr<Kernel>(MakeSelectKernel(SelectShapes::kRankOneCondition));
}

}  // namespace relite::cpu
