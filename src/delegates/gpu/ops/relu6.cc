// RELU6: clamp(x, 0, 6) (usually folded into its producer).
#include "src/delegates/gpu/ops/emitters.h"
#include "src/delegates/gpu/ops/internal/elementwise.h"

namespace relite::gpu {

Status EmitRelu6(OpBuilder& b) { return EmitUnary(b, "x", 0.f, 0.f, 6.f); }

}  // namespace relite::gpu
