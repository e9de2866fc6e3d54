// Quantized RELU_N1_TO_1: clamp to [-1, 1] in the output's quantized domain (uint8, int8,
// int16); the kernel and its arithmetic are in quantized/relu.cc.
#include "src/kernels/cpu/internal/quantized_elementwise.h"
#include "src/kernels/cpu/kernels.h"

namespace relite::cpu {

StatusOr<std::unique_ptr<Kernel>> CreateQuantizedReluN1To1(const Node&) { return MakeQuantizedClampKernel(-1.0f, 1.0f); }

}  // namespace relite::cpu
