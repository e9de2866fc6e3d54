// GELU: the exact (erf) form, or the tanh approximation when `approximate`.
#include "src/core/ops/options.h"
#include "src/delegates/onednn/ops/ops.h"
#include "src/delegates/onednn/ops/internal/elementwise.h"

namespace relite::onednn {

Status BuildGelu(OpContext& ctx) {
  const auto* o = GetOptions<tflite::GeluOptions>(ctx.node());
  const bool approximate = o != nullptr && o->approximate();
  return BuildEltwise(ctx, approximate ? dnnl_eltwise_gelu_tanh : dnnl_eltwise_gelu_erf);
}

}  // namespace relite::onednn
