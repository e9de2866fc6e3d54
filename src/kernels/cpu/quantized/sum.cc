// Quantized SUM (uint8, int8: XNNPACK's arithmetic; int16: TFLite's), see
// internal/quantized_reduce.h.
#include <memory>

#include "src/kernels/cpu/internal/quantized_reduce.h"
#include "src/kernels/cpu/kernels.h"

namespace relite::cpu {

StatusOr<std::unique_ptr<Kernel>> CreateQuantizedSum(const Node& node) {
  return std::unique_ptr<Kernel>(std::make_unique<QuantizedReduceSumKernel>(node, /*mean=*/false));
}

}  // namespace relite::cpu
