#include "src/delegates/onednn/ops/internal/transpose_conv.h"

#include <algorithm>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "src/delegates/onednn/ops/internal/conv.h"
#include "src/delegates/onednn/ops/internal/fused_pd.h"
#include "src/delegates/onednn/ops/internal/layout.h"

namespace relite::onednn {

namespace {

// A transposed convolution whose stride equals its kernel, unpadded: each
// input pixel writes its own KHxKW block. That is a 1x1 convolution to
// KH*KW*OC channels followed by a reorder that moves each (kh, kw) group to
// its place (a pixel shuffle). oneDNN 2.6's deconvolution pads a few output
// channels to a 16-channel block (selfie_segmentation's last layer, 1
// channel: 16x the work).
Status BuildPixelShuffleDeconvolution(OpContext& ctx, const TransposeConvInputs& in, const ConvSpec& s) {
  const dnnl_data_type_t type = ctx.compute_type();
  const int64_t groups = s.kh * s.kw, oc2 = groups * s.oc;
  std::vector<float> weights, bias;
  if (!ctx.checking()) {
    // Row (kh * KW + kw) * OC + oc of the 1x1 filter is TFLite's [oc][kh][kw][:].
    const float* w = static_cast<const float*>(s.weights);
    weights.resize(static_cast<size_t>(oc2 * s.ic));
    for (int64_t oc = 0; oc < s.oc; ++oc) {
      for (int64_t g = 0; g < groups; ++g) {
        std::copy_n(w + (oc * groups + g) * s.ic, s.ic, weights.begin() + (g * s.oc + oc) * s.ic);
      }
    }
    bias.assign(static_cast<size_t>(oc2), 0.0f);
    if (in.bias >= 0 && ctx.has_input(in.bias)) {
      const float* b = static_cast<const float*>(ctx.input(in.bias).data);
      for (int64_t g = 0; g < groups; ++g) std::copy_n(b, s.oc, bias.begin() + g * s.oc);
    }
  }
  const dnnl_dims_t src_dims = {s.n, s.ic, s.ih, s.iw}, w_dims = {oc2, s.ic, 1, 1}, y_dims = {s.n, oc2, s.ih, s.iw};
  const dnnl_dims_t bias_dims = {oc2}, strides = {1, 1}, zeros = {0, 0};
  RELITE_ASSIGN_OR_RETURN(dnnl_memory_desc_t src, ctx.AnyDesc(4, src_dims, type));
  RELITE_ASSIGN_OR_RETURN(dnnl_memory_desc_t wmd, ctx.AnyDesc(4, w_dims, type));
  RELITE_ASSIGN_OR_RETURN(dnnl_memory_desc_t user_w, ctx.TagDesc(4, w_dims, dnnl_f32, dnnl_acdb));
  RELITE_ASSIGN_OR_RETURN(dnnl_memory_desc_t bmd, ctx.TagDesc(1, bias_dims, dnnl_f32, dnnl_a));
  RELITE_ASSIGN_OR_RETURN(dnnl_memory_desc_t y, ctx.TagDesc(4, y_dims, type, dnnl_acdb));
  const DnnlApi& api = ctx.api();
  auto init = [&](const dnnl_memory_desc_t& d, dnnl_convolution_desc_t* desc) {
    return api.dnnl_dilated_convolution_forward_desc_init(desc, dnnl_forward_inference, dnnl_convolution_direct, &src,
                                                          &wmd, &bmd, &d, strides, zeros, zeros, zeros);
  };
  RELITE_ASSIGN_OR_RETURN(dnnl_primitive_desc_t pd,
                          (CreateFusedPd<dnnl_convolution_desc_t>(ctx, s.activation, y, init, "convolution")));
  // The 1x1 result [N, IH, IW, KH, KW, OC] seen as [N, IH, KH, IW, KW, OC]:
  // copied dense, that is the output [N, IH*KH, IW*KW, OC].
  const dnnl_dims_t dims6 = {s.n, s.ih, s.kh, s.iw, s.kw, s.oc};
  const dnnl_dims_t from6 = {s.ih * s.iw * oc2, s.iw * oc2, s.kw * s.oc, oc2, s.oc, 1};
  const dnnl_dims_t to6 = {s.ih * s.kh * s.iw * s.kw * s.oc, s.kh * s.iw * s.kw * s.oc, s.iw * s.kw * s.oc, s.kw * s.oc, s.oc, 1};
  dnnl_primitive_desc_t shuffle = nullptr;
  auto fail = [&](const Status& st) {
    if (pd != nullptr) api.dnnl_primitive_desc_destroy(pd);
    if (shuffle != nullptr) api.dnnl_primitive_desc_destroy(shuffle);
    return st;
  };
  auto shuffled = ctx.StridesDesc(6, dims6, type, from6);
  auto dense = shuffled.ok() ? ctx.StridesDesc(6, dims6, type, to6) : shuffled;
  if (!dense.ok()) return fail(dense.status());
  if (api.dnnl_reorder_primitive_desc_create(&shuffle, &*shuffled, ctx.engine(), &*dense, ctx.engine(), nullptr) !=
      dnnl_success) {
    shuffle = nullptr;
    return fail(ctx.Refuse("oneDNN has no reorder for the pixel shuffle"));
  }
  auto x = ctx.InputArg(in.input, ctx.QueryMd(pd, dnnl_query_src_md));
  auto w = x.ok() ? ctx.OwnedConstantArg(std::move(weights), user_w, ctx.QueryMd(pd, dnnl_query_weights_md)) : x.status();
  auto b = w.ok() ? ctx.OwnedConstantArg(std::move(bias), bmd, ctx.QueryMd(pd, dnnl_query_weights_md, 1)) : w.status();
  auto t = b.ok() ? ctx.TempArg(y) : b.status();
  if (!t.ok()) return fail(t.status());
  const Status conv = ctx.Add(pd, {{DNNL_ARG_SRC, *x}, {DNNL_ARG_WEIGHTS, *w}, {DNNL_ARG_BIAS, *b}, {DNNL_ARG_DST, *t}});
  pd = nullptr;  // Add took it
  if (!conv.ok()) return fail(conv);
  auto v = ctx.ViewArg(*t, *shuffled);
  auto out = v.ok() ? NaturalOutput(ctx, *dense) : v.status();
  if (!out.ok()) return fail(out.status());
  return ctx.Add(shuffle, {{DNNL_ARG_FROM, *v}, {DNNL_ARG_TO, *out}});
}

}  // namespace

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
  if (s.kh == s.stride_h && s.kw == s.stride_w && s.pad_top == 0 && s.pad_left == 0 && s.pad_bottom == 0 &&
      s.pad_right == 0) {
    return BuildPixelShuffleDeconvolution(ctx, in, s);
  }
  const dnnl_dims_t dims = {s.oc, s.ic, s.kh, s.kw};
  RELITE_ASSIGN_OR_RETURN(s.user_weights, ctx.TagDesc(4, dims, dnnl_f32, dnnl_acdb));
  return BuildConvolution(ctx, s);
}

}  // namespace relite::onednn
