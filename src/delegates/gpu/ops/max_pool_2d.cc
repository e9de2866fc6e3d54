// MAX_POOL_2D: the maximum of each window's in-bounds cells, fused clamp.
#include "src/delegates/gpu/ops/emitters.h"
#include "src/delegates/gpu/ops/internal/pool_2d.h"

namespace relite::gpu {

Status EmitMaxPool2D(OpBuilder& b) { return EmitPool2D(b, false); }

}  // namespace relite::gpu
