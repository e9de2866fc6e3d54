// PRELU: x for x >= 0, alpha * x below; alpha broadcasts (usually per channel).
#include "src/delegates/gpu/ops/emitters.h"
#include "src/delegates/gpu/ops/internal/elementwise.h"

namespace relite::gpu {

Status EmitPrelu(OpBuilder& b) { return EmitBinary(b, "fmax(a, 0.0f) + b * fmin(a, 0.0f)", false); }

}  // namespace relite::gpu
