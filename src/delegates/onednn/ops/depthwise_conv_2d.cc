// DEPTHWISE_CONV_2D: a grouped convolution with one group per input channel
// and depth_multiplier outputs each.
#include <fmt/format.h>

#include "src/core/ops/params.h"
#include "src/delegates/onednn/ops/ops.h"
#include "src/delegates/onednn/ops/internal/conv.h"

namespace relite::onednn {

Status BuildDepthwiseConv2D(OpContext& ctx) {
  RELITE_RETURN_IF_ERROR(ctx.RequireFloat({0, 1, 2}));
  RELITE_ASSIGN_OR_RETURN(DepthwiseConv2DParams p, ParseDepthwiseConv2DParams(ctx.node()));
  RELITE_RETURN_IF_ERROR(ctx.RequireConstant(1, "the filter"));
  if (ctx.has_input(2)) RELITE_RETURN_IF_ERROR(ctx.RequireConstant(2, "the bias"));
  const Shape& x = ctx.input(0).shape;
  const Shape& w = ctx.input(1).shape;
  if (x.size() != 4 || w.size() != 4 || w[0] != 1) return ctx.Refuse("input must be 4-D and the filter [1, KH, KW, C*M]");
  const int64_t c = x[3], oc = w[3];
  if (c <= 0 || oc % c != 0) return ctx.Refuse(fmt::format("filter channels {} are not a multiple of the input's {}", oc, c));
  const int64_t m = oc / c;
  if (p.depth_multiplier > 0 && p.depth_multiplier != m) {
    return ctx.Refuse(fmt::format("depth_multiplier {} does not match the shapes ({})", p.depth_multiplier, m));
  }
  if (ctx.has_input(2) && NumElements(ctx.input(2).shape) != oc) return ctx.Refuse("the bias does not match the filter");
  ConvSpec s;
  s.n = x[0], s.ih = x[1], s.iw = x[2], s.ic = c;
  s.oc = oc, s.kh = w[1], s.kw = w[2];
  s.groups = c;
  s.stride_h = p.stride_h, s.stride_w = p.stride_w, s.dilation_h = p.dilation_h, s.dilation_w = p.dilation_w;
  RELITE_RETURN_IF_ERROR(PlanWindow(ctx, p.padding, &s));
  s.src_input = 0;
  s.bias_input = 2;
  s.activation = p.activation;
  s.weights = ctx.input(1).data;
  // TFLite's filter [1, KH, KW, C*M], output channel g*M + k: oneDNN's
  // grouped weights {G=C, M, 1, KH, KW} over the same bytes.
  const dnnl_dims_t dims = {c, m, 1, s.kh, s.kw};
  const dnnl_dims_t strides = {m, 1, 1, s.kw * oc, oc};
  RELITE_ASSIGN_OR_RETURN(s.user_weights, ctx.StridesDesc(5, dims, dnnl_f32, strides));
  return BuildConvolution(ctx, s);
}

}  // namespace relite::onednn
