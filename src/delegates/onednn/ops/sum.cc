// SUM -> reduction sum over constant axes.
#include "src/delegates/onednn/ops/ops.h"

namespace relite::onednn {

Status BuildSum(OpContext& ctx) { return BuildReduction(ctx, dnnl_reduction_sum); }

}  // namespace relite::onednn
