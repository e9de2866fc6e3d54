// MediaPipe's custom op Convolution2DTransposeBias: a transposed convolution
// with inputs (input [N,H,W,Cin], weights [Cout,KH,KW,Cin], bias [Cout]),
// options {padding, stride_w, stride_h} as raw custom options, and the output
// size given by the padding: SAME -> in * stride, VALID -> (in-1) * stride + K.
#include <memory>

#include "relite/kernel.h"
#include "src/core/ops/params.h"
#include "src/kernels/cpu/internal/transpose_conv_core.h"
#include "src/kernels/cpu/kernels.h"

namespace relite::cpu {

StatusOr<std::unique_ptr<Kernel>> CreateConvolution2DTransposeBias(const Node& node) {
  RELITE_ASSIGN_OR_RETURN(TransposeConvParams params, ParseTransposeConvParams(node));
  TransposeConvLayout layout;
  layout.min_inputs = 3;
  layout.max_inputs = 3;
  layout.input = 0;
  layout.weights = 1;
  layout.bias = 2;
  layout.output_shape = -1;
  return MakeTransposeConvKernel(layout, params);
}

}  // namespace relite::cpu
