// RELU: max(x, 0).
#include "src/delegates/onednn/ops/ops.h"
#include "src/delegates/onednn/ops/internal/elementwise.h"

namespace relite::onednn {

Status BuildRelu(OpContext& ctx) { return BuildEltwise(ctx, dnnl_eltwise_relu); }

}  // namespace relite::onednn
