// DIV: a / b, broadcasting, fused clamp (x / 0 is inf or nan, as on the CPU).
#include "src/delegates/gpu/ops/emitters.h"
#include "src/delegates/gpu/ops/internal/elementwise.h"

namespace relite::gpu {

Status EmitDiv(OpBuilder& b) { return EmitBinary(b, "a / b", true); }

}  // namespace relite::gpu
