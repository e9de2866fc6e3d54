// MEAN -> reduction mean over constant axes.
#include "src/delegates/onednn/ops/ops.h"

namespace relite::onednn {

Status BuildMean(OpContext& ctx) { return BuildReduction(ctx, dnnl_reduction_mean); }

}  // namespace relite::onednn
