// EXP.
#include "src/delegates/gpu/ops/emitters.h"
#include "src/delegates/gpu/ops/internal/elementwise.h"

namespace relite::gpu {

Status EmitExp(OpBuilder& b) { return EmitFoldableUnary(b, "exp(x)"); }

}  // namespace relite::gpu
