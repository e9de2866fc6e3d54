// MAXIMUM (broadcasting).
#include "src/delegates/onednn/ops/ops.h"
#include "src/delegates/onednn/ops/internal/elementwise.h"

namespace relite::onednn {

Status BuildMaximum(OpContext& ctx) { return BuildBinary(ctx, dnnl_binary_max, true); }

}  // namespace relite::onednn
