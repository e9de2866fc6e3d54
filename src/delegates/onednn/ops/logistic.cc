// LOGISTIC: 1 / (1 + exp(-x)).
#include "src/delegates/onednn/ops/ops.h"
#include "src/delegates/onednn/ops/internal/elementwise.h"

namespace relite::onednn {

Status BuildLogistic(OpContext& ctx) { return BuildEltwise(ctx, dnnl_eltwise_logistic); }

}  // namespace relite::onednn
