// STRIDED_SLICE's slice spec resolved against an input shape, with
// TensorFlow's semantics, shared by the CPU kernel and the GPU delegate: the
// constant begin/end/strides form a spec in which ellipsis_mask expands to as
// many full dimensions as needed, new_axis_mask inserts size-1 dimensions,
// shrink_axis_mask picks one index (dropping the dimension), begin/end masks
// mean "from the start / to the end in the stride's direction", negative
// indices count from the end and out-of-range bounds clamp. TFLite's `offset`
// option makes `end` relative to the resolved begin.
#pragma once

#include <cstdint>
#include <vector>

#include "relite/kernel.h"
#include "relite/status.h"

namespace relite {

struct StridedSliceMasks {
  int32_t begin = 0, end = 0, ellipsis = 0, new_axis = 0, shrink_axis = 0;
  bool offset = false;
};
// The node's StridedSliceOptions (all zero when absent).
StridedSliceMasks ParseStridedSliceMasks(const Node& node);

struct ResolvedSlice {
  static constexpr int kNewAxis = -1;
  static constexpr int kShrunk = -2;
  // Per input dimension: the first index, the number of elements (0 for an
  // empty slice) and the step.
  std::vector<int64_t> first, count, stride;
  // Per entry of the expanded spec: the input dimension it keeps, kNewAxis
  // or kShrunk; the output shape follows from it.
  std::vector<int> recipe;
  Shape OutputShape() const;
};

// InvalidArgument, without the node's name, for a spec that cannot apply to
// `input` (lengths differ, two ellipses, too many dimensions, zero stride, a
// shrunk index out of range or with a negative stride).
StatusOr<ResolvedSlice> ResolveStridedSlice(const Shape& input, const std::vector<int64_t>& begin,
                                            const std::vector<int64_t>& end, const std::vector<int64_t>& strides,
                                            const StridedSliceMasks& masks);

}  // namespace relite
