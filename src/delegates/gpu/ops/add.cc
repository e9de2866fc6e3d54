// ADD: a + b, broadcasting, fused clamp.
#include "src/delegates/gpu/ops/emitters.h"
#include "src/delegates/gpu/ops/internal/elementwise.h"

namespace relite::gpu {

Status EmitAdd(OpBuilder& b) { return EmitAddOrSub(b, /*subtract=*/false); }

}  // namespace relite::gpu
