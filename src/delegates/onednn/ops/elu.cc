// ELU: x > 0 ? x : exp(x) - 1 (TFLite's alpha is 1).
#include "src/delegates/onednn/ops/ops.h"
#include "src/delegates/onednn/ops/internal/elementwise.h"

namespace relite::onednn {

Status BuildElu(OpContext& ctx) { return BuildEltwise(ctx, dnnl_eltwise_elu, 1.0f); }

}  // namespace relite::onednn
