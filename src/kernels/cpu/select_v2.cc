// SELECT_V2: out = condition ? x : y (see internal/select.h for the shapes).
#include <memory>

#include "src/kernels/cpu/internal/select.h"
#include "src/kernels/cpu/kernels.h"

namespace relite::cpu {

StatusOr<std::unique_ptr<Kernel>> CreateSelectV2(const Node&) {
  return std::unique_ptr<Kernel>(MakeSelectKernel(SelectShapes::kBroadcast));
}

}  // namespace relite::cpu
