// Quantized SUB (uint8, int8, int16): see internal/quantized_binary.h for
// which arithmetic applies when.
#include "src/kernels/cpu/internal/quantized_binary.h"
#include "src/kernels/cpu/kernels.h"

namespace relite::cpu {

StatusOr<std::unique_ptr<Kernel>> CreateQuantizedSub(const Node& node) {
  return CreateQuantizedBinary<QuantizedBinaryOp::kSub>(node);
}

}  // namespace relite::cpu
