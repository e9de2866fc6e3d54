#include "src/delegates/onednn/ops/internal/conv.h"

#include <algorithm>

#include <fmt/format.h>

#include "src/delegates/onednn/ops/internal/fused_pd.h"

namespace relite::onednn {

StatusOr<DnnlWindow> ConvWindow(OpContext& ctx, PaddingType padding, int64_t in, int64_t filter, int64_t stride,
                                int64_t dilation, int64_t out) {
  DnnlWindow w;
  const int64_t eff = (filter - 1) * dilation + 1;
  if (padding == PaddingType::kSame) w.pad_l = std::max<int64_t>((out - 1) * stride + eff - in, 0) / 2;
  // Input past the last window (VALID, or SAME with a large stride) needs no
  // negative padding: oneDNN's floor division leaves it out as TFLite does.
  w.pad_r = std::max<int64_t>((out - 1) * stride + eff - in - w.pad_l, 0);
  if ((in - eff + w.pad_l + w.pad_r) / stride + 1 != out || w.pad_l >= eff || w.pad_r >= eff) {
    return ctx.Refuse(fmt::format("the window (input {}, filter {}, stride {}, dilation {}) gives no output extent {}",
                                  in, filter, stride, dilation, out));
  }
  return w;
}

Status PlanWindow(OpContext& ctx, PaddingType padding, ConvSpec* s) {
  RELITE_ASSIGN_OR_RETURN(PaddedDim hd, ComputeWindow(ctx.node(), padding, static_cast<int32_t>(s->ih), static_cast<int32_t>(s->kh),
                                                      static_cast<int32_t>(s->stride_h), static_cast<int32_t>(s->dilation_h)));
  RELITE_ASSIGN_OR_RETURN(PaddedDim wd, ComputeWindow(ctx.node(), padding, static_cast<int32_t>(s->iw), static_cast<int32_t>(s->kw),
                                                      static_cast<int32_t>(s->stride_w), static_cast<int32_t>(s->dilation_w)));
  s->oh = hd.out, s->ow = wd.out;
  RELITE_RETURN_IF_ERROR(
      ctx.RequireOutputShape(0, {static_cast<int32_t>(s->n), hd.out, wd.out, static_cast<int32_t>(s->oc)}));
  RELITE_ASSIGN_OR_RETURN(DnnlWindow wh, ConvWindow(ctx, padding, s->ih, s->kh, s->stride_h, s->dilation_h, s->oh));
  RELITE_ASSIGN_OR_RETURN(DnnlWindow ww, ConvWindow(ctx, padding, s->iw, s->kw, s->stride_w, s->dilation_w, s->ow));
  s->pad_top = wh.pad_l, s->pad_bottom = wh.pad_r, s->pad_left = ww.pad_l, s->pad_right = ww.pad_r;
  return ApplyPrePad(ctx, s);
}

Status ApplyPrePad(OpContext& ctx, ConvSpec* s) {
  const PrePad& pp = ctx.fusion().pre_pad;
  if (pp.node < 0) return Status::Ok();
  const Shape& src = ctx.graph().tensor(pp.source).shape;
  if (src.size() != 4 || src[0] != s->n || src[3] != s->ic || src[1] + pp.top + pp.bottom != s->ih ||
      src[2] + pp.left + pp.right != s->iw) {
    return ctx.Refuse("the folded PAD's shapes do not match");
  }
  s->ih = src[1];
  s->iw = src[2];
  s->pad_top += pp.top;
  s->pad_bottom += pp.bottom;
  s->pad_left += pp.left;
  s->pad_right += pp.right;
  s->src_tensor = pp.source;
  return Status::Ok();
}

Status BuildConvolution(OpContext& ctx, const ConvSpec& s) {
  const dnnl_data_type_t type = ctx.compute_type();
  const dnnl_dims_t src_dims = {s.n, s.ic, s.ih, s.iw};
  const dnnl_dims_t dst_dims = {s.n, s.oc, s.oh, s.ow};
  const int weights_rank = s.groups > 1 ? 5 : 4;
  dnnl_dims_t weights_dims;
  if (s.groups > 1) {
    const dnnl_dims_t g = {s.groups, s.oc / s.groups, s.ic / s.groups, s.kh, s.kw};
    for (int i = 0; i < 5; ++i) weights_dims[i] = g[i];
  } else {
    const dnnl_dims_t w = {s.oc, s.ic, s.kh, s.kw};
    for (int i = 0; i < 4; ++i) weights_dims[i] = w[i];
  }
  RELITE_ASSIGN_OR_RETURN(dnnl_memory_desc_t src, ctx.AnyDesc(4, src_dims, type));
  RELITE_ASSIGN_OR_RETURN(dnnl_memory_desc_t weights, ctx.AnyDesc(weights_rank, weights_dims, type));
  RELITE_ASSIGN_OR_RETURN(dnnl_memory_desc_t dst, ctx.AnyDesc(4, dst_dims, type));
  const dnnl_dims_t bias_dims = {s.oc};
  RELITE_ASSIGN_OR_RETURN(dnnl_memory_desc_t bias, ctx.TagDesc(1, bias_dims, dnnl_f32, dnnl_a));
  const bool has_bias = s.bias_input >= 0 && ctx.has_input(s.bias_input);
  const dnnl_dims_t strides = {s.stride_h, s.stride_w};
  const dnnl_dims_t dilates = {s.dilation_h - 1, s.dilation_w - 1};  // oneDNN counts the gaps
  const dnnl_dims_t pad_l = {s.pad_top, s.pad_left};
  const dnnl_dims_t pad_r = {s.pad_bottom, s.pad_right};
  const DnnlApi& api = ctx.api();
  dnnl_primitive_desc_t pd = nullptr;
  if (s.deconvolution) {
    auto init = [&](const dnnl_memory_desc_t& d, dnnl_deconvolution_desc_t* desc) {
      return api.dnnl_dilated_deconvolution_forward_desc_init(desc, dnnl_forward_inference, dnnl_deconvolution_direct,
                                                              &src, &weights, has_bias ? &bias : nullptr, &d, strides,
                                                              dilates, pad_l, pad_r);
    };
    RELITE_ASSIGN_OR_RETURN(pd, (CreateFusedPd<dnnl_deconvolution_desc_t>(ctx, s.activation, dst, init, "deconvolution")));
  } else {
    auto init = [&](const dnnl_memory_desc_t& d, dnnl_convolution_desc_t* desc) {
      return api.dnnl_dilated_convolution_forward_desc_init(desc, dnnl_forward_inference, dnnl_convolution_direct, &src,
                                                            &weights, has_bias ? &bias : nullptr, &d, strides, dilates,
                                                            pad_l, pad_r);
    };
    RELITE_ASSIGN_OR_RETURN(pd, (CreateFusedPd<dnnl_convolution_desc_t>(ctx, s.activation, dst, init, "convolution")));
  }
  std::vector<std::pair<int, int>> args;
  auto bind = [&]() -> Status {
    const dnnl_memory_desc_t src_md = ctx.QueryMd(pd, dnnl_query_src_md);
    RELITE_ASSIGN_OR_RETURN(int x, s.src_tensor >= 0 ? ctx.TensorArg(s.src_tensor, src_md) : ctx.InputArg(s.src_input, src_md));
    RELITE_ASSIGN_OR_RETURN(int w, ctx.ConstantArg(s.weights, s.user_weights, ctx.QueryMd(pd, dnnl_query_weights_md)));
    args.push_back({DNNL_ARG_SRC, x});
    args.push_back({DNNL_ARG_WEIGHTS, w});
    if (has_bias) {
      RELITE_ASSIGN_OR_RETURN(int b, ctx.ConstantArg(ctx.input(s.bias_input).data, bias,
                                                     ctx.QueryMd(pd, dnnl_query_weights_md, 1)));
      args.push_back({DNNL_ARG_BIAS, b});
    }
    RELITE_ASSIGN_OR_RETURN(int y, ctx.OutputArgWithResidual(ctx.QueryMd(pd, dnnl_query_dst_md)));
    args.push_back({DNNL_ARG_DST, y});
    return Status::Ok();
  };
  if (Status st = bind(); !st.ok()) {
    ctx.api().dnnl_primitive_desc_destroy(pd);
    return st;
  }
  return ctx.Add(pd, std::move(args));
}

}  // namespace relite::onednn
