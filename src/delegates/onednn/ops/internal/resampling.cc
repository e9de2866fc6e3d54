// The resampling shared by RESIZE_BILINEAR and RESIZE_NEAREST_NEIGHBOR (each
// file says which of TFLite's coordinate rules oneDNN's matches).
#include "src/delegates/onednn/ops/ops.h"

namespace relite::onednn {

Status CheckResampleShapes(OpContext& ctx) {
  const Shape& x = ctx.input(0).shape;
  const Shape& y = ctx.output(0).shape;
  if (x.size() != 4 || y.size() != 4 || x[0] != y[0] || x[3] != y[3]) {
    return ctx.Refuse("input and output must be 4-D, same batch and depth");
  }
  return Status::Ok();
}

Status BuildResampling(OpContext& ctx, dnnl_alg_kind_t alg) {
  RELITE_RETURN_IF_ERROR(CheckResampleShapes(ctx));
  const Shape& y = ctx.output(0).shape;
  RELITE_ASSIGN_OR_RETURN(dnnl_memory_desc_t src, ctx.InputDesc(0));
  const dnnl_dims_t dst_dims = {y[0], y[3], y[1], y[2]};
  RELITE_ASSIGN_OR_RETURN(dnnl_memory_desc_t dst, ctx.AnyDesc(4, dst_dims, src.data_type));
  dnnl_resampling_desc_t desc;
  if (ctx.api().dnnl_resampling_forward_desc_init(&desc, dnnl_forward_inference, alg, nullptr, &src, &dst) !=
      dnnl_success) {
    return ctx.Refuse("oneDNN rejects the resampling");
  }
  RELITE_ASSIGN_OR_RETURN(dnnl_primitive_desc_t pd, ctx.CreatePd(&desc, nullptr, "resampling"));
  return ctx.AddUnary(pd, src);
}

}  // namespace relite::onednn
