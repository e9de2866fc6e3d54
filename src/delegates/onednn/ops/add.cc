// ADD (broadcasting; a residual ADD after a convolution is folded into it as a binary post-op).
#include "src/delegates/onednn/ops/ops.h"
#include "src/delegates/onednn/ops/internal/elementwise.h"

namespace relite::onednn {

Status BuildAdd(OpContext& ctx) { return BuildBinary(ctx, dnnl_binary_add, true); }

}  // namespace relite::onednn
