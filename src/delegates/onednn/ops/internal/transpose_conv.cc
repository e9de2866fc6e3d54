#include "src/delegates/onednn/ops/internal/transpose_conv.h"

#include <fmt/format.h>

#include "src/delegates/onednn/ops/internal/conv.h"

namespace relite::onednn {

Status BuildTransposedConvolution(OpContext& ctx, const TransposeConvParams& p, const TransposeConvInputs& in,
                                  int64_t out_h, int64_t out_w) {
  RELITE_RETURN_IF_ERROR(ctx.RequireFloat({in.input, in.weights}));
  if (in.bias >= 0) RELITE_RETURN_IF_ERROR(ctx.RequireFloat({in.bias}));
  RELITE_RETURN_IF_ERROR(ctx.RequireConstant(in.weights, "the filter"));
  const bool has_bias = in.bias >= 0 && ctx.has_input(in.bias);
  if (has_bias) RELITE_RETURN_IF_ERROR(ctx.RequireConstant(in.bias, "the bias"));
  const Shape& x = ctx.input(in.input).shape;
  const Shape& w = ctx.input(in.weights).shape;
  if (x.size() != 4 || w.size() != 4) return ctx.Refuse("input and filter must be 4-D");
  if (w[3] != x[3]) return ctx.Refuse(fmt::format("filter input channels {} differ from the input's {}", w[3], x[3]));
  if (has_bias && NumElements(ctx.input(in.bias).shape) != w[0]) return ctx.Refuse("the bias does not match the filter");
  ConvSpec s;
  s.deconvolution = true;
  s.n = x[0], s.ih = x[1], s.iw = x[2], s.ic = x[3];
  s.oc = w[0], s.kh = w[1], s.kw = w[2];
  s.oh = out_h, s.ow = out_w;
  RELITE_RETURN_IF_ERROR(
      ctx.RequireOutputShape(0, {x[0], static_cast<int32_t>(out_h), static_cast<int32_t>(out_w), w[0]}));
  RELITE_RETURN_IF_ERROR(CheckTransposedWindow(ctx.node(), x[1], static_cast<int32_t>(out_h), w[1], p.stride_h));
  RELITE_RETURN_IF_ERROR(CheckTransposedWindow(ctx.node(), x[2], static_cast<int32_t>(out_w), w[2], p.stride_w));
  RELITE_ASSIGN_OR_RETURN(PaddedDim hd, ComputeWindow(ctx.node(), p.padding, static_cast<int32_t>(out_h), w[1], p.stride_h, 1));
  RELITE_ASSIGN_OR_RETURN(PaddedDim wd, ComputeWindow(ctx.node(), p.padding, static_cast<int32_t>(out_w), w[2], p.stride_w, 1));
  s.stride_h = p.stride_h, s.stride_w = p.stride_w;
  s.pad_top = hd.pad_before, s.pad_left = wd.pad_before;
  // oneDNN: out = (in - 1) * stride + K - pad_before - pad_after.
  s.pad_bottom = (s.ih - 1) * s.stride_h + s.kh - s.oh - s.pad_top;
  s.pad_right = (s.iw - 1) * s.stride_w + s.kw - s.ow - s.pad_left;
  if (s.pad_bottom < 0 || s.pad_right < 0) {
    return ctx.Refuse(fmt::format("an output of {}x{} reaches past the last input pixel's window (oneDNN's "
                                  "deconvolution has no negative padding)",
                                  s.oh, s.ow));
  }
  s.src_input = in.input;
  s.bias_input = has_bias ? in.bias : -1;
  s.activation = p.activation;
  s.weights = ctx.input(in.weights).data;
  const dnnl_dims_t dims = {s.oc, s.ic, s.kh, s.kw};
  RELITE_ASSIGN_OR_RETURN(s.user_weights, ctx.TagDesc(4, dims, dnnl_f32, dnnl_acdb));
  return BuildConvolution(ctx, s);
}

}  // namespace relite::onednn
