// SPLIT: input 1 cut into num_splits equal parts along the constant axis in
// input 0.
#include <fmt/format.h>

#include "src/core/ops/options.h"
#include "src/delegates/gpu/ops/emitters.h"
#include "src/delegates/gpu/ops/internal/split.h"

namespace relite::gpu {

Status EmitSplit(OpBuilder& b) {
  RELITE_ASSIGN_OR_RETURN(int axis_t, b.Input(0));
  RELITE_ASSIGN_OR_RETURN(int in, b.Input(1));
  RELITE_ASSIGN_OR_RETURN(std::vector<int64_t> axis, b.ConstantInts(axis_t, "the axis"));
  if (axis.size() != 1) return InvalidArgumentError(b.node().Describe() + ": the axis must hold one value");
  const auto* o = GetOptions<tflite::SplitOptions>(b.node());
  const int32_t n = o != nullptr ? o->num_splits() : 0;
  const Shape& shape = b.tensor(in).shape;
  const int rank = static_cast<int>(shape.size());
  if (n < 1 || axis[0] < -rank || axis[0] >= rank) {
    return InvalidArgumentError(fmt::format("{}: num_splits {} / axis {} invalid for rank {}", b.node().Describe(), n, axis[0], rank));
  }
  const int32_t dim = shape[static_cast<size_t>(axis[0] < 0 ? axis[0] + rank : axis[0])];
  if (dim % n != 0) return InvalidArgumentError(fmt::format("{}: {} does not divide into {} splits", b.node().Describe(), dim, n));
  return EmitSplitAlong(b, in, axis[0], std::vector<int64_t>(static_cast<size_t>(n), dim / n));
}

}  // namespace relite::gpu
