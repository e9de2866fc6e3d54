// SUB (the second operand may broadcast).
#include "src/delegates/onednn/ops/ops.h"
#include "src/delegates/onednn/ops/internal/elementwise.h"

namespace relite::onednn {

Status BuildSub(OpContext& ctx) { return BuildBinary(ctx, dnnl_binary_sub, false); }

}  // namespace relite::onednn
