// SQUARED_DIFFERENCE: (a - b)^2, a binary subtraction with a square post-op.
#include "src/delegates/onednn/ops/ops.h"
#include "src/delegates/onednn/ops/internal/elementwise.h"

namespace relite::onednn {

Status BuildSquaredDifference(OpContext& ctx) {
  PostOp square;
  square.alg = dnnl_eltwise_square;
  // (a - b)^2 = (b - a)^2: the operands may be exchanged.
  return BuildBinary(ctx, dnnl_binary_sub, true, {square});
}

}  // namespace relite::onednn
