// AVERAGE_POOL_2D and MAX_POOL_2D share one emitter and template.
#pragma once

#include "src/delegates/gpu/ops/op_builder.h"

namespace relite::gpu {

Status EmitPool2D(OpBuilder& b, bool average);

}  // namespace relite::gpu
