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
  return BuildResampling(ctx, dnnl_resampling_linear);
}

}  // namespace relite::onednn
