// Every GPU op emitter (one per file in ops/), listed in ops/op_list.inc.
#pragma once

#include "src/delegates/gpu/ops/op_builder.h"

namespace relite::gpu {

#define RELITE_GPU_BUILTIN_OP(CODE, EMIT, MINV, MAXV) Status EMIT(OpBuilder& b);
#define RELITE_GPU_CUSTOM_OP(NAME, EMIT, MINV, MAXV) Status EMIT(OpBuilder& b);
#include "src/delegates/gpu/ops/op_list.inc"
#undef RELITE_GPU_BUILTIN_OP
#undef RELITE_GPU_CUSTOM_OP

}  // namespace relite::gpu
