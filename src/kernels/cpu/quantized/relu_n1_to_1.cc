// Quantized RELU_N1_TO_1: clamp to [-1, 1] in the output's quantized domain (uint8, int8;
// TFLite's kernel refuses int16, and so does relite); the kernel and its
// arithmetic are in quantized/relu.cc.
#include "src/kernels/cpu/internal/quantized_elementwise.h"
#include "src/kernels/cpu/kernels.h"

namespace relite::cpu {

StatusOr<std::unique_ptr<Kernel>> CreateQuantizedReluN1To1(const Node& node) {
  if (node.input_type(0) == DataType::kInt16) {
    return UnimplementedError(node.Describe() + ": int16 input is not supported (TFLite has float32, uint8 and int8)");
  }
  return MakeQuantizedClampKernel(-1.0f, 1.0f);
}

}  // namespace relite::cpu
