// EXP.
#include "src/delegates/onednn/ops/ops.h"
#include "src/delegates/onednn/ops/internal/elementwise.h"

namespace relite::onednn {

Status BuildExp(OpContext& ctx) { return BuildEltwise(ctx, dnnl_eltwise_exp); }

}  // namespace relite::onednn
