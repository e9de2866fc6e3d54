// ABS.
#include "src/delegates/onednn/ops/ops.h"
#include "src/delegates/onednn/ops/internal/elementwise.h"

namespace relite::onednn {

Status BuildAbs(OpContext& ctx) { return BuildEltwise(ctx, dnnl_eltwise_abs); }

}  // namespace relite::onednn
