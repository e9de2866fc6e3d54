// TRANSPOSE_CONV: inputs (output_shape int32[4] constant, weights
// [Cout,KH,KW,Cin], input[, bias from version 3]); the fused activation of
// version 4 is applied as a clamp, like the CPU kernel does.
#include "src/delegates/gpu/ops/emitters.h"
#include "src/delegates/gpu/ops/internal/transpose_conv.h"

namespace relite::gpu {

Status EmitTransposeConv(OpBuilder& b) {
  TransposeConvInputs inputs;
  inputs.output_shape = 0;
  inputs.weights = 1;
  inputs.input = 2;
  inputs.bias = 3;
  return EmitTransposeConvOp(b, inputs);
}

}  // namespace relite::gpu
