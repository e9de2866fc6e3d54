// PAD and PADV2 share one emitter: PADV2 adds a constant fill value (input 2).
#pragma once

#include "src/delegates/gpu/ops/op_builder.h"

namespace relite::gpu {

Status EmitPadCommon(OpBuilder& b, bool has_value_input);

}  // namespace relite::gpu
