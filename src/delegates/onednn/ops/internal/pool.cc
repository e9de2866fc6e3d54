// AVERAGE_POOL_2D / MAX_POOL_2D -> pooling (averages exclude the padding,
// as TFLite's do), in the layout the input is held; fused activation as a
// post-op.
#include <fmt/format.h>

#include "src/delegates/onednn/ops/internal/conv.h"
#include "src/delegates/onednn/ops/ops.h"

namespace relite::onednn {

Status BuildPool(OpContext& ctx, dnnl_alg_kind_t alg) {
  RELITE_RETURN_IF_ERROR(ctx.RequireFloat({0}));
  RELITE_ASSIGN_OR_RETURN(Pool2DParams p, ParsePool2DParams(ctx.node()));
  const Shape& x = ctx.input(0).shape;
  const Shape& y = ctx.output(0).shape;
  if (x.size() != 4) return ctx.Refuse("the input must be 4-D");
  const PaddedDim oh = ComputePaddedDim(p.padding, static_cast<int32_t>(x[1]), p.filter_h, p.stride_h, 1);
  const PaddedDim ow = ComputePaddedDim(p.padding, static_cast<int32_t>(x[2]), p.filter_w, p.stride_w, 1);
  const Shape expect{x[0], oh.out, ow.out, x[3]};
  if (y != expect) {
    return ctx.Refuse(fmt::format("the output is declared {}, the window gives {}", ShapeToString(y), ShapeToString(expect)));
  }
  RELITE_ASSIGN_OR_RETURN(DnnlWindow wh, ConvWindow(ctx, p.padding, x[1], p.filter_h, p.stride_h, 1, oh.out));
  RELITE_ASSIGN_OR_RETURN(DnnlWindow ww, ConvWindow(ctx, p.padding, x[2], p.filter_w, p.stride_w, 1, ow.out));
  RELITE_ASSIGN_OR_RETURN(dnnl_memory_desc_t src, ctx.InputDesc(0));
  const dnnl_dims_t dst_dims = {y[0], y[3], y[1], y[2]};
  RELITE_ASSIGN_OR_RETURN(dnnl_memory_desc_t dst, ctx.AnyDesc(4, dst_dims, src.data_type));
  const dnnl_dims_t strides = {p.stride_h, p.stride_w};
  const dnnl_dims_t kernel = {p.filter_h, p.filter_w};
  const dnnl_dims_t dilation = {0, 0};
  const dnnl_dims_t pad_l = {wh.pad_l, ww.pad_l};
  const dnnl_dims_t pad_r = {wh.pad_r, ww.pad_r};
  RELITE_ASSIGN_OR_RETURN(OpContext::Attr attr, ctx.MakeAttr(p.activation, /*with_fusion=*/false));
  dnnl_pooling_v2_desc_t desc;
  if (ctx.api().dnnl_pooling_v2_forward_desc_init(&desc, dnnl_forward_inference, alg, &src, &dst, strides, kernel,
                                                  dilation, pad_l, pad_r) != dnnl_success) {
    ctx.FreeAttr(attr);
    return ctx.Refuse("oneDNN rejects the pooling window");
  }
  auto pd = ctx.CreatePd(&desc, attr.attr, "pooling");
  ctx.FreeAttr(attr);
  if (!pd.ok()) return pd.status();
  // Forward inference max pooling needs no workspace.
  return ctx.AddUnary(*pd, src);
}

}  // namespace relite::onednn
