// RESIZE_BILINEAR with half_pixel_centers -> linear resampling, whose
// source coordinate (dst + 0.5) * in / out - 0.5 and edge clamping are
// TFLite's half-pixel rule. TFLite's other rules (src = dst * scale, or
// align_corners) have no oneDNN counterpart: those nodes stay on the CPU.
#include <fmt/format.h>

#include "src/core/ops/options.h"
#include "src/delegates/onednn/ops/ops.h"

namespace relite::onednn {

Status BuildResizeBilinear(OpContext& ctx) {
  RELITE_RETURN_IF_ERROR(ctx.RequireFloat({0}));
  const auto* options = GetOptions<tflite::ResizeBilinearOptions>(ctx.node());
  const bool align_corners = options != nullptr && options->align_corners();
  const bool half_pixel = options != nullptr && options->half_pixel_centers();
  if (align_corners || !half_pixel) {
    return ctx.Refuse(fmt::format("oneDNN resamples with half-pixel centers only (this node: align_corners={}, "
                                  "half_pixel_centers={})",
                                  align_corners, half_pixel));
  }
  const Shape& x = ctx.input(0).shape;
  const Shape& y = ctx.output(0).shape;
  if (x.size() != 4 || y.size() != 4 || x[0] != y[0] || x[3] != y[3]) return ctx.Refuse("input and output must be 4-D, same batch and depth");
  RELITE_ASSIGN_OR_RETURN(dnnl_memory_desc_t src, ctx.InputDesc(0));
  const dnnl_dims_t dst_dims = {y[0], y[3], y[1], y[2]};
  RELITE_ASSIGN_OR_RETURN(dnnl_memory_desc_t dst, ctx.AnyDesc(4, dst_dims, src.data_type));
  dnnl_resampling_desc_t desc;
  if (ctx.api().dnnl_resampling_forward_desc_init(&desc, dnnl_forward_inference, dnnl_resampling_linear, nullptr, &src,
                                                  &dst) != dnnl_success) {
    return ctx.Refuse("oneDNN rejects the resampling");
  }
  RELITE_ASSIGN_OR_RETURN(dnnl_primitive_desc_t pd, ctx.CreatePd(&desc, nullptr, "resampling"));
  return ctx.AddUnary(pd, src);
}

}  // namespace relite::onednn
