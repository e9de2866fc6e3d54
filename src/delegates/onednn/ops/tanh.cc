// TANH.
#include "src/delegates/onednn/ops/ops.h"
#include "src/delegates/onednn/ops/internal/elementwise.h"

namespace relite::onednn {

Status BuildTanh(OpContext& ctx) { return BuildEltwise(ctx, dnnl_eltwise_tanh); }

}  // namespace relite::onednn
