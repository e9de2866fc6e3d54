// RELU_N1_TO_1: clip(x, -1, 1).
#include "src/delegates/onednn/ops/ops.h"
#include "src/delegates/onednn/ops/internal/elementwise.h"

namespace relite::onednn {

Status BuildReluN1To1(OpContext& ctx) { return BuildEltwise(ctx, dnnl_eltwise_clip, -1.0f, 1.0f); }

}  // namespace relite::onednn
