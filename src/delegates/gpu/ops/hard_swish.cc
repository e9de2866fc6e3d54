// HARD_SWISH: x * relu6(x + 3) / 6.
#include "src/delegates/gpu/ops/emitters.h"
#include "src/delegates/gpu/ops/internal/elementwise.h"

namespace relite::gpu {

Status EmitHardSwish(OpBuilder& b) { return EmitFoldableUnary(b, "x * clamp(x + 3.0f, 0.0f, 6.0f) * (1.0f / 6.0f)"); }

}  // namespace relite::gpu
