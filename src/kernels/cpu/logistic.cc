// LOGISTIC: out = 1 / (1 + e^-x), without overflow for any x.
#include <memory>

#include "src/kernels/cpu/internal/elementwise.h"
#include "src/kernels/cpu/isa/kernel_table.h"
#include "src/kernels/cpu/kernels.h"

namespace relite::cpu {

StatusOr<std::unique_ptr<Kernel>> CreateLogistic(const Node&) {
  return std::unique_ptr<Kernel>(std::make_unique<FloatArrayKernel>(Kernels().logistic_f32, kTranscendentalMinChunk));
}

}  // namespace relite::cpu
