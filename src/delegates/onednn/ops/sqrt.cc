// SQRT.
#include "src/delegates/onednn/ops/ops.h"
#include "src/delegates/onednn/ops/internal/elementwise.h"

namespace relite::onednn {

Status BuildSqrt(OpContext& ctx) { return BuildEltwise(ctx, dnnl_eltwise_sqrt); }

}  // namespace relite::onednn
