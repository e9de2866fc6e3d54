// MINIMUM: elementwise min, broadcasting.
#include "src/delegates/gpu/ops/emitters.h"
#include "src/delegates/gpu/ops/internal/elementwise.h"

namespace relite::gpu {

Status EmitMinimum(OpBuilder& b) { return EmitBinary(b, "fmin(a, b)", false); }

}  // namespace relite::gpu
