// LEAKY_RELU: x > 0 ? x : alpha * x (oneDNN's relu with a negative slope).
#include "src/core/ops/options.h"
#include "src/delegates/onednn/ops/ops.h"
#include "src/delegates/onednn/ops/internal/elementwise.h"

namespace relite::onednn {

Status BuildLeakyRelu(OpContext& ctx) {
  const auto* o = GetOptions<tflite::LeakyReluOptions>(ctx.node());
  return BuildEltwise(ctx, dnnl_eltwise_relu, o != nullptr ? o->alpha() : 0.2f);
}

}  // namespace relite::onednn
