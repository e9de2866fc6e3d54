// HARD_SWISH: x * relu6(x + 3) / 6 (oneDNN 2.x's hardswish has no parameters).
#include "src/delegates/onednn/ops/ops.h"
#include "src/delegates/onednn/ops/internal/elementwise.h"

namespace relite::onednn {

Status BuildHardSwish(OpContext& ctx) { return BuildEltwise(ctx, dnnl_eltwise_hardswish); }

}  // namespace relite::onednn
