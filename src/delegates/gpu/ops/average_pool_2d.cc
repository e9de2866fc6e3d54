// AVERAGE_POOL_2D: the mean of each window's in-bounds cells, fused clamp.
#include "src/delegates/gpu/ops/emitters.h"
#include "src/delegates/gpu/ops/internal/pool_2d.h"

namespace relite::gpu {

Status EmitAveragePool2D(OpBuilder& b) { return EmitPool2D(b, true); }

}  // namespace relite::gpu
