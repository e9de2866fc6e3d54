// SUB: a - b, broadcasting, fused clamp.
#include "src/delegates/gpu/ops/emitters.h"
#include "src/delegates/gpu/ops/internal/elementwise.h"

namespace relite::gpu {

Status EmitSub(OpBuilder& b) { return EmitAddOrSub(b, /*subtract=*/true); }

}  // namespace relite::gpu
