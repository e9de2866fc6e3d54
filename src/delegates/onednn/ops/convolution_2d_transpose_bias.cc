// MediaPipe's Convolution2DTransposeBias: input, filter [OC, KH, KW, IC],
// bias; the output extent follows the padding: SAME in * stride, VALID
// (in - 1) * stride + K.
#include "src/delegates/onednn/ops/ops.h"
#include "src/delegates/onednn/ops/internal/transpose_conv.h"

namespace relite::onednn {

Status BuildConvolution2DTransposeBias(OpContext& ctx) {
  RELITE_ASSIGN_OR_RETURN(TransposeConvParams p, ParseTransposeConvParams(ctx.node()));
  if (ctx.num_inputs() != 3) return ctx.Refuse("expected 3 inputs (input, filter, bias)");
  const Shape& x = ctx.input(0).shape;
  const Shape& w = ctx.input(1).shape;
  if (x.size() != 4 || w.size() != 4) return ctx.Refuse("input and filter must be 4-D");
  const bool same = p.padding == PaddingType::kSame;
  const int64_t oh = same ? int64_t{x[1]} * p.stride_h : (int64_t{x[1]} - 1) * p.stride_h + w[1];
  const int64_t ow = same ? int64_t{x[2]} * p.stride_w : (int64_t{x[2]} - 1) * p.stride_w + w[2];
  if (oh <= 0 || ow <= 0 || oh > (int64_t{1} << 30) || ow > (int64_t{1} << 30)) return ctx.Refuse("the output extent is out of range");
  TransposeConvInputs in;
  in.input = 0;
  in.weights = 1;
  in.bias = 2;
  return BuildTransposedConvolution(ctx, p, in, oh, ow);
}

}  // namespace relite::onednn
