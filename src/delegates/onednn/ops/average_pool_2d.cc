// AVERAGE_POOL_2D -> pooling, averages over the window's elements inside the input.
#include "src/delegates/onednn/ops/ops.h"

namespace relite::onednn {

Status BuildAveragePool2D(OpContext& ctx) { return BuildPool(ctx, dnnl_pooling_avg_exclude_padding); }

}  // namespace relite::onednn
