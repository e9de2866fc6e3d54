// RELU6: clip(x, 0, 6) (usually folded into its producer as a post-op).
#include "src/delegates/onednn/ops/ops.h"
#include "src/delegates/onednn/ops/internal/elementwise.h"

namespace relite::onednn {

Status BuildRelu6(OpContext& ctx) { return BuildEltwise(ctx, dnnl_eltwise_clip, 0.0f, 6.0f); }

}  // namespace relite::onednn
