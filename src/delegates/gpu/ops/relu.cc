// RELU: max(x, 0) (usually folded into its producer, see FuseClampNodes).
#include "src/delegates/gpu/ops/emitters.h"
#include "src/delegates/gpu/ops/internal/elementwise.h"

namespace relite::gpu {

Status EmitRelu(OpBuilder& b) { return EmitUnary(b, "x", 0.f, 0.f); }

}  // namespace relite::gpu
