// EXP: out = e^x (vector code of internal/vector_math.h, within 1 ulp).
#include <memory>

#include "src/kernels/cpu/internal/elementwise.h"
#include "src/kernels/cpu/internal/vector_math.h"
#include "src/kernels/cpu/kernels.h"

namespace relite::cpu {

StatusOr<std::unique_ptr<Kernel>> CreateExp(const Node&) {
  return std::unique_ptr<Kernel>(std::make_unique<FloatArrayKernel>(&vmath::Apply<vmath::Exp>, kTranscendentalMinChunk));
}

}  // namespace relite::cpu
