// TANH: out = tanh(x).
#include <memory>

#include "src/kernels/cpu/internal/elementwise.h"
#include "src/kernels/cpu/isa/kernel_table.h"
#include "src/kernels/cpu/kernels.h"

namespace relite::cpu {

StatusOr<std::unique_ptr<Kernel>> CreateTanh(const Node&) {
  return std::unique_ptr<Kernel>(std::make_unique<FloatArrayKernel>(Kernels().tanh_f32, kTranscendentalMinChunk));
}

}  // namespace relite::cpu
