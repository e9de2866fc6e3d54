// REDUCE_MAX -> reduction max over the constant axes.
#include "src/delegates/onednn/ops/ops.h"

namespace relite::onednn {

Status BuildReduceMax(OpContext& ctx) { return BuildReduction(ctx, dnnl_reduction_max); }

}  // namespace relite::onednn
