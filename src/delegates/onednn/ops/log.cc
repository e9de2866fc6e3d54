// LOG: natural logarithm.
#include "src/delegates/onednn/ops/ops.h"
#include "src/delegates/onednn/ops/internal/elementwise.h"

namespace relite::onednn {

Status BuildLog(OpContext& ctx) { return BuildEltwise(ctx, dnnl_eltwise_log); }

}  // namespace relite::onednn
