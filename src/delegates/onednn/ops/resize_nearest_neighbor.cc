// RESIZE_NEAREST_NEIGHBOR by whole factors -> nearest resampling. oneDNN
// picks source round((dst + 0.5) / f - 0.5), which is TFLite's floor(dst / f)
// when f is a whole number (TFLite's default, no align_corners or
// half_pixel_centers); other cases stay on the CPU.
#include <fmt/format.h>

#include "src/core/ops/options.h"
#include "src/delegates/onednn/ops/ops.h"

namespace relite::onednn {

Status BuildResizeNearestNeighbor(OpContext& ctx) {
  RELITE_RETURN_IF_ERROR(ctx.RequireFloat({0}));
  const auto* options = GetOptions<tflite::ResizeNearestNeighborOptions>(ctx.node());
  if (options != nullptr && (options->align_corners() || options->half_pixel_centers())) {
    return ctx.Refuse("align_corners and half_pixel_centers are not supported");
  }
  const Shape& x = ctx.input(0).shape;
  const Shape& y = ctx.output(0).shape;
  RELITE_RETURN_IF_ERROR(CheckResampleShapes(ctx));
  if (y[1] % x[1] != 0 || y[2] % x[2] != 0) {
    return ctx.Refuse(fmt::format("{} to {} is not an upscaling by whole factors", ShapeToString(x), ShapeToString(y)));
  }
  if (ctx.has_input(1)) {
    RELITE_ASSIGN_OR_RETURN(std::vector<int64_t> size, ctx.ConstantInts(1, "the size"));
    if (size.size() != 2 || size[0] != y[1] || size[1] != y[2]) return ctx.Refuse("the size does not match the declared output");
  }
  return BuildResampling(ctx, dnnl_resampling_nearest);
}

}  // namespace relite::onednn
