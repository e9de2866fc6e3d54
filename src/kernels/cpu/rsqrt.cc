// RSQRT: out = 1 / sqrt(x) (correctly rounded sqrt, then a division; x < 0 gives
// NaN, +-0 gives +-inf).
#include <memory>

#include "src/kernels/cpu/internal/elementwise.h"
#include "src/kernels/cpu/isa/kernel_table.h"
#include "src/kernels/cpu/kernels.h"

namespace relite::cpu {

StatusOr<std::unique_ptr<Kernel>> CreateRsqrt(const Node&) {
  return std::unique_ptr<Kernel>(std::make_unique<FloatArrayKernel>(Kernels().rsqrt_f32, kDefaultMinChunk));
}

}  // namespace relite::cpu
