// MUL (broadcasting).
#include "src/delegates/onednn/ops/ops.h"
#include "src/delegates/onednn/ops/internal/elementwise.h"

namespace relite::onednn {

Status BuildMul(OpContext& ctx) { return BuildBinary(ctx, dnnl_binary_mul, true); }

}  // namespace relite::onednn
