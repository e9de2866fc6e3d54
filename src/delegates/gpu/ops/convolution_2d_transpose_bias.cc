// MediaPipe's custom Convolution2DTransposeBias: inputs (input, weights
// [Cout,KH,KW,Cin], bias), {padding, stride_w, stride_h} as raw custom options,
// output size SAME -> in * stride, VALID -> (in - 1) * stride + K.
#include "src/delegates/gpu/ops/emitters.h"
#include "src/delegates/gpu/ops/internal/transpose_conv.h"

namespace relite::gpu {

Status EmitConvolution2DTransposeBias(OpBuilder& b) {
  TransposeConvInputs inputs;
  inputs.input = 0;
  inputs.weights = 1;
  inputs.bias = 2;
  inputs.output_shape = -1;
  return EmitTransposeConvOp(b, inputs);
}

}  // namespace relite::gpu
