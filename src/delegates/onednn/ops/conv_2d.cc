// CONV_2D: a direct convolution; oneDNN picks the algorithm and layouts (a
// grouped filter, input channels a multiple of the filter's, becomes groups).
#include <fmt/format.h>

#include "src/core/ops/params.h"
#include "src/delegates/onednn/ops/ops.h"
#include "src/delegates/onednn/ops/internal/conv.h"

namespace relite::onednn {

Status BuildConv2D(OpContext& ctx) {
  RELITE_RETURN_IF_ERROR(ctx.RequireFloat({0, 1, 2}));
  RELITE_ASSIGN_OR_RETURN(Conv2DParams p, ParseConv2DParams(ctx.node()));
  RELITE_RETURN_IF_ERROR(ctx.RequireConstant(1, "the filter"));
  if (ctx.has_input(2)) RELITE_RETURN_IF_ERROR(ctx.RequireConstant(2, "the bias"));
  const Shape& x = ctx.input(0).shape;
  const Shape& w = ctx.input(1).shape;
  if (x.size() != 4 || w.size() != 4) return ctx.Refuse("input and filter must be 4-D");
  if (w[3] <= 0 || x[3] % w[3] != 0) {
    return ctx.Refuse(fmt::format("input channels {} are not a multiple of the filter's {}", x[3], w[3]));
  }
  ConvSpec s;
  s.n = x[0], s.ih = x[1], s.iw = x[2], s.ic = x[3];
  s.oc = w[0], s.kh = w[1], s.kw = w[2];
  s.groups = x[3] / w[3];
  if (s.groups > 1 && s.oc % s.groups != 0) return ctx.Refuse("output channels are not a multiple of the groups");
  if (ctx.has_input(2) && NumElements(ctx.input(2).shape) != s.oc) return ctx.Refuse("the bias does not match the filter");
  s.stride_h = p.stride_h, s.stride_w = p.stride_w, s.dilation_h = p.dilation_h, s.dilation_w = p.dilation_w;
  RELITE_RETURN_IF_ERROR(PlanWindow(ctx, p.padding, &s));
  s.src_input = 0;
  s.bias_input = 2;
  s.activation = p.activation;
  s.weights = ctx.input(1).data;
  // TFLite's filter [OC, KH, KW, IC/G]: oneDNN's o-h-w-i order, per group.
  if (s.groups == 1) {
    const dnnl_dims_t dims = {s.oc, s.ic, s.kh, s.kw};
    RELITE_ASSIGN_OR_RETURN(s.user_weights, ctx.TagDesc(4, dims, dnnl_f32, dnnl_acdb));
  } else {
    const int64_t og = s.oc / s.groups, ig = s.ic / s.groups;
    const dnnl_dims_t dims = {s.groups, og, ig, s.kh, s.kw};
    const dnnl_dims_t strides = {og * s.kh * s.kw * ig, s.kh * s.kw * ig, 1, s.kw * ig, ig};
    RELITE_ASSIGN_OR_RETURN(s.user_weights, ctx.StridesDesc(5, dims, dnnl_f32, strides));
  }
  return BuildConvolution(ctx, s);
}

}  // namespace relite::onednn
