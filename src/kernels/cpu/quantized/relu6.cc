// Quantized RELU6: clamp to [0, 6] in the output's quantized domain (uint8, int8,
// int16); the kernel and its arithmetic are in quantized/relu.cc.
#include "src/kernels/cpu/internal/quantized_elementwise.h"
#include "src/kernels/cpu/kernels.h"

namespace relite::cpu {

StatusOr<std::unique_ptr<Kernel>> CreateQuantizedRelu6(const Node&) { return MakeQuantizedClampKernel(0.0f, 6.0f); }

}  // namespace relite::cpu
