// SPLIT and SPLIT_V: each output is a slice of the input along one axis, one
// remap launch per output (internal/remap.h).
#pragma once

#include <cstdint>
#include <vector>

#include "src/delegates/gpu/ops/op_builder.h"

namespace relite::gpu {

// `in` cut along `axis_value` (negative counts from the end) into
// `sizes.size()` outputs of those extents (the node's outputs, in order).
Status EmitSplitAlong(OpBuilder& b, int in, int64_t axis_value, const std::vector<int64_t>& sizes);

}  // namespace relite::gpu
