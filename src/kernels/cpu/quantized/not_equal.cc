// Quantized NOT_EQUAL (uint8, int8): both operands rescaled to TFLite's common
// fixed-point scale, then compared (internal/quantized_comparison.h).
#include <functional>
#include <memory>

#include "src/kernels/cpu/internal/quantized_comparison.h"
#include "src/kernels/cpu/kernels.h"

namespace relite::cpu {

StatusOr<std::unique_ptr<Kernel>> CreateQuantizedNotEqual(const Node& node) {
  return CreateQuantizedComparison<std::not_equal_to<int32_t>>(node, CreateNotEqual);
}

}  // namespace relite::cpu
