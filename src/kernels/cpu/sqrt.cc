// SQRT: out = sqrt(x), correctly rounded; x < 0 gives NaN.
#include <memory>

#include "src/kernels/cpu/internal/elementwise.h"
#include "src/kernels/cpu/isa/kernel_table.h"
#include "src/kernels/cpu/kernels.h"

namespace relite::cpu {

StatusOr<std::unique_ptr<Kernel>> CreateSqrt(const Node&) {
  return std::unique_ptr<Kernel>(std::make_unique<FloatArrayKernel>(Kernels().sqrt_f32, kDefaultMinChunk));
}

}  // namespace relite::cpu
