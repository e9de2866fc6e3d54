// MAXIMUM: elementwise max, broadcasting.
#include "src/delegates/gpu/ops/emitters.h"
#include "src/delegates/gpu/ops/internal/elementwise.h"

namespace relite::gpu {

Status EmitMaximum(OpBuilder& b) { return EmitBinary(b, "fmax(a, b)", false); }

}  // namespace relite::gpu
