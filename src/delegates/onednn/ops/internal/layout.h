// Layout helpers for ops that see a tensor as TFLite orders it (matmuls,
// transposes, reshapes) rather than as oneDNN's channel-second dims.
#pragma once

#include "src/delegates/onednn/op_context.h"

namespace relite::onednn {

// `shape` in TFLite's own order at rank `rank` (leading 1s), row-major; with
// `swap_last_two`, the last two dims exchanged over the same bytes (a
// transposed operand).
StatusOr<dnnl_memory_desc_t> NaturalDesc(OpContext& ctx, const Shape& shape, int rank, bool swap_last_two = false);

// Input i's bytes in plain channels-last layout, in the compute type (a
// reorder when its producer left it blocked), seen as `view`.
StatusOr<int> PlainInputAs(OpContext& ctx, int i, const dnnl_memory_desc_t& view);

// Output 0 written as `natural` (a memory of the op's own), then held by
// the partition as the plain channels-last bytes it is.
StatusOr<int> NaturalOutput(OpContext& ctx, const dnnl_memory_desc_t& natural);

}  // namespace relite::onednn
