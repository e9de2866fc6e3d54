// SQUARE: x * x.
#include "src/delegates/onednn/ops/ops.h"
#include "src/delegates/onednn/ops/internal/elementwise.h"

namespace relite::onednn {

Status BuildSquare(OpContext& ctx) { return BuildEltwise(ctx, dnnl_eltwise_square); }

}  // namespace relite::onednn
