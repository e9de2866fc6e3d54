// TANH.
#include "src/delegates/gpu/ops/emitters.h"
#include "src/delegates/gpu/ops/internal/elementwise.h"

namespace relite::gpu {

Status EmitTanh(OpBuilder& b) { return EmitFoldableUnary(b, "tanh(x)"); }

}  // namespace relite::gpu
