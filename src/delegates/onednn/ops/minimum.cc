// MINIMUM (broadcasting).
#include "src/delegates/onednn/ops/ops.h"
#include "src/delegates/onednn/ops/internal/elementwise.h"

namespace relite::onednn {

Status BuildMinimum(OpContext& ctx) { return BuildBinary(ctx, dnnl_binary_min, true); }

}  // namespace relite::onednn
