// TANH: out = tanh(x).
#include <memory>

#include "src/kernels/cpu/internal/elementwise.h"
#include "src/kernels/cpu/internal/vector_math.h"
#include "src/kernels/cpu/kernels.h"

namespace relite::cpu {

StatusOr<std::unique_ptr<Kernel>> CreateTanh(const Node&) {
  return std::unique_ptr<Kernel>(std::make_unique<FloatArrayKernel>(&vmath::Apply<vmath::Tanh>, kTranscendentalMinChunk));
}

}  // namespace relite::cpu
