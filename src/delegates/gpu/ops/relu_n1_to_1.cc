// RELU_N1_TO_1: clamp(x, -1, 1) (usually folded into its producer).
#include "src/delegates/gpu/ops/emitters.h"
#include "src/delegates/gpu/ops/internal/elementwise.h"

namespace relite::gpu {

Status EmitReluN1To1(OpBuilder& b) { return EmitUnary(b, "x", 0.f, -1.f, 1.f); }

}  // namespace relite::gpu
