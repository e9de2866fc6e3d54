// LOGISTIC: 1 / (1 + exp(-x)).
#include "src/delegates/gpu/ops/emitters.h"
#include "src/delegates/gpu/ops/internal/elementwise.h"

namespace relite::gpu {

Status EmitLogistic(OpBuilder& b) { return EmitFoldableUnary(b, "1.0f / (1.0f + exp(-x))"); }

}  // namespace relite::gpu
