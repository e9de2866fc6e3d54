// Quantized GREATER_EQUAL (uint8, int8): both operands rescaled to TFLite's common
// fixed-point scale, then compared (internal/quantized_comparison.h).
#include <functional>
#include <memory>

#include "src/kernels/cpu/internal/quantized_comparison.h"
#include "src/kernels/cpu/kernels.h"

namespace relite::cpu {

StatusOr<std::unique_ptr<Kernel>> CreateQuantizedGreaterEqual(const Node& node) {
  return CreateQuantizedComparison<std::greater_equal<int32_t>>(node, CreateGreaterEqual);
}

}  // namespace relite::cpu
