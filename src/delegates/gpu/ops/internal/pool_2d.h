// AVERAGE_POOL_2D and MAX_POOL_2D share one emitter and template.
#pragma once

#include "src/delegates/gpu/ops/op_builder.h"

namespace relite::gpu {

Status EmitPool2D(OpBuilder& b, bool average);

// One launch pooling each (batch item, slice) of `in` over its whole plane
// (at least 16 cells; a work group of 8 x 8 gives a slice 8 items, one of 256
// a plane of 256 cells or more) into `out` (its GPU shape [B,1,1,C]): the
// mean when `average`, else the maximum.
// For MEAN over height and width as for a global AVERAGE_POOL_2D.
bool GlobalPoolFits(const GpuShape& in);
void EmitGlobalPool(OpBuilder& b, int in, int out, const GpuShape& si, const GpuShape& so, bool average, float act_min,
                         float act_max);

}  // namespace relite::gpu
