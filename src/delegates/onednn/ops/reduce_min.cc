// REDUCE_MIN -> reduction min over the constant axes.
#include "src/delegates/onednn/ops/ops.h"

namespace relite::onednn {

Status BuildReduceMin(OpContext& ctx) { return BuildReduction(ctx, dnnl_reduction_min); }

}  // namespace relite::onednn
