// HARD_SWISH: out = x * relu6(x + 3) / 6 (vector code of
// internal/vector_math.h).
#include <memory>

#include "src/kernels/cpu/internal/elementwise.h"
#include "src/kernels/cpu/isa/kernel_table.h"
#include "src/kernels/cpu/kernels.h"

namespace relite::cpu {

StatusOr<std::unique_ptr<Kernel>> CreateHardSwish(const Node&) {
  return std::unique_ptr<Kernel>(std::make_unique<FloatArrayKernel>(Kernels().hard_swish_f32, kDefaultMinChunk));
}

}  // namespace relite::cpu
