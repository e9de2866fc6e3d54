// TRANSPOSE_CONV: inputs (output_shape int32[4], weights [Cout,KH,KW,Cin],
// input [N,H,W,Cin][, bias [Cout] from version 3]); the work is in
// internal/transpose_conv_core.
#include <memory>

#include "relite/kernel.h"
#include "src/core/ops/params.h"
#include "src/kernels/cpu/internal/quantization.h"
#include "src/kernels/cpu/internal/transpose_conv_core.h"
#include "src/kernels/cpu/kernels.h"

namespace relite::cpu {

StatusOr<std::unique_ptr<Kernel>> CreateTransposeConv(const Node& node) {
  // The registration picks kernels by the type of input 0, here the int32
  // output shape: quantized activations (input 2) go to the 8-bit kernel.
  if (IsQuantizedIntType(node.input_type(2))) return CreateQuantizedTransposeConv(node);
  RELITE_ASSIGN_OR_RETURN(TransposeConvParams params, ParseTransposeConvParams(node));
  RELITE_RETURN_IF_ERROR(CheckClampActivation(node, params.activation));
  TransposeConvLayout layout;
  layout.min_inputs = 3;
  layout.max_inputs = 4;
  layout.output_shape = 0;
  layout.weights = 1;
  layout.input = 2;
  layout.bias = 3;
  return MakeTransposeConvKernel(layout, params);
}

}  // namespace relite::cpu
