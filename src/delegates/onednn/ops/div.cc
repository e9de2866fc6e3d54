// DIV (the second operand may broadcast).
#include "src/delegates/onednn/ops/ops.h"
#include "src/delegates/onednn/ops/internal/elementwise.h"

namespace relite::onednn {

Status BuildDiv(OpContext& ctx) { return BuildBinary(ctx, dnnl_binary_div, false); }

}  // namespace relite::onednn
