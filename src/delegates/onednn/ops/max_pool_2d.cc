// MAX_POOL_2D -> max pooling.
#include "src/delegates/onednn/ops/ops.h"

namespace relite::onednn {

Status BuildMaxPool2D(OpContext& ctx) { return BuildPool(ctx, dnnl_pooling_max); }

}  // namespace relite::onednn
