// TRANSPOSE_CONV: inputs output_shape (constant), filter [OC, KH, KW, IC],
// input, and from version 3 a bias.
#include "src/delegates/onednn/ops/ops.h"
#include "src/delegates/onednn/ops/internal/transpose_conv.h"

namespace relite::onednn {

Status BuildTransposeConv(OpContext& ctx) {
  RELITE_ASSIGN_OR_RETURN(TransposeConvParams p, ParseTransposeConvParams(ctx.node()));
  RELITE_ASSIGN_OR_RETURN(std::vector<int64_t> shape, ctx.ConstantInts(0, "the output shape"));
  if (shape.size() != 4) return ctx.Refuse("the output shape must have 4 values");
  TransposeConvInputs in;
  in.input = 2;
  in.weights = 1;
  in.bias = ctx.num_inputs() > 3 ? 3 : -1;
  if (shape[1] <= 0 || shape[2] <= 0 || shape[1] > (int64_t{1} << 30) || shape[2] > (int64_t{1} << 30)) {
    return ctx.Refuse("the output shape is out of range");
  }
  return BuildTransposedConvolution(ctx, p, in, shape[1], shape[2]);
}

}  // namespace relite::onednn
