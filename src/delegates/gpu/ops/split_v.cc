// SPLIT_V: input 0 cut along the constant axis (input 2) into the constant
// sizes of input 1, one of which may be -1 (the rest).
#include <fmt/format.h>

#include "src/delegates/gpu/ops/emitters.h"
#include "src/delegates/gpu/ops/internal/split.h"

namespace relite::gpu {

Status EmitSplitV(OpBuilder& b) {
  RELITE_ASSIGN_OR_RETURN(int in, b.Input(0));
  RELITE_ASSIGN_OR_RETURN(int sizes_t, b.Input(1));
  RELITE_ASSIGN_OR_RETURN(int axis_t, b.Input(2));
  RELITE_ASSIGN_OR_RETURN(std::vector<int64_t> sizes, b.ConstantInts(sizes_t, "the split sizes"));
  RELITE_ASSIGN_OR_RETURN(std::vector<int64_t> axis, b.ConstantInts(axis_t, "the axis"));
  if (axis.size() != 1) return InvalidArgumentError(b.node().Describe() + ": the axis must hold one value");
  const Shape& shape = b.tensor(in).shape;
  const int rank = static_cast<int>(shape.size());
  if (axis[0] < -rank || axis[0] >= rank) {
    return InvalidArgumentError(fmt::format("{}: axis {} is out of range for rank {}", b.node().Describe(), axis[0], rank));
  }
  const int64_t dim = shape[static_cast<size_t>(axis[0] < 0 ? axis[0] + rank : axis[0])];
  int64_t known = 0;
  int free = -1;
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (sizes[i] == -1 && free < 0) {
      free = static_cast<int>(i);
    } else if (sizes[i] < 0 || sizes[i] > dim) {
      return InvalidArgumentError(fmt::format("{}: split size {} is invalid", b.node().Describe(), sizes[i]));
    } else {
      known += sizes[i];
    }
  }
  if (free >= 0) sizes[static_cast<size_t>(free)] = dim - known;
  for (int64_t s : sizes) {
    if (s <= 0) return NotOnGpu("an empty split");
  }
  return EmitSplitAlong(b, in, axis[0], sizes);
}

}  // namespace relite::gpu
