// EXP: out = e^x (vector code of internal/vector_math.h, within 1 ulp).
#include <memory>

#include "src/kernels/cpu/internal/elementwise.h"
#include "src/kernels/cpu/isa/kernel_table.h"
#include "src/kernels/cpu/kernels.h"

namespace relite::cpu {

StatusOr<std::unique_ptr<Kernel>> CreateExp(const Node&) {
  return std::unique_ptr<Kernel>(std::make_unique<FloatArrayKernel>(Kernels().exp_f32, kTranscendentalMinChunk));
}

}  // namespace relite::cpu
