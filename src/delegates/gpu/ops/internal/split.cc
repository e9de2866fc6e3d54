#include "src/delegates/gpu/ops/internal/split.h"

#include <fmt/format.h>

#include "src/delegates/gpu/ops/internal/remap.h"

namespace relite::gpu {

Status EmitSplitAlong(OpBuilder& b, int in, int64_t axis_value, const std::vector<int64_t>& sizes) {
  const Shape& in_shape = b.tensor(in).shape;
  const int rank = static_cast<int>(in_shape.size());
  RELITE_RETURN_IF_ERROR(b.RequireFloat(in, "the input"));
  RELITE_RETURN_IF_ERROR(b.Shape(in).status());
  if (axis_value < -rank || axis_value >= rank) {
    return InvalidArgumentError(fmt::format("{}: axis {} is out of range for rank {}", b.node().Describe(), axis_value, rank));
  }
  const int axis = static_cast<int>(axis_value < 0 ? axis_value + rank : axis_value);
  if (static_cast<int>(b.node().outputs.size()) != static_cast<int>(sizes.size())) {
    return InvalidArgumentError(fmt::format("{}: {} outputs for {} splits", b.node().Describe(), b.node().outputs.size(), sizes.size()));
  }
  int64_t offset = 0;
  for (size_t i = 0; i < sizes.size(); ++i) {
    RELITE_ASSIGN_OR_RETURN(int out, b.Output(static_cast<int>(i)));
    const std::string what = fmt::format("output {}", i);
    RELITE_RETURN_IF_ERROR(b.RequireFloat(out, "the " + what));
    Shape expected = in_shape;
    expected[static_cast<size_t>(axis)] = static_cast<int32_t>(sizes[i]);
    if (b.tensor(out).shape != expected) {
      return InvalidArgumentError(fmt::format("{}: {} is declared {}, the split gives {}", b.node().Describe(), what,
                                              ShapeToString(b.tensor(out).shape), ShapeToString(expected)));
    }
    Remap m;
    RELITE_ASSIGN_OR_RETURN(m.walk, ToGpuShape(expected));
    m.begin[static_cast<size_t>(GpuAxis(rank, axis))] = static_cast<int32_t>(offset);
    RELITE_RETURN_IF_ERROR(EmitRemap(b, in, out, m));
    offset += sizes[i];
  }
  if (offset != in_shape[static_cast<size_t>(axis)]) {
    return InvalidArgumentError(fmt::format("{}: the splits cover {} of the {} elements along axis {}", b.node().Describe(), offset,
                                            in_shape[static_cast<size_t>(axis)], axis));
  }
  return Status::Ok();
}

}  // namespace relite::gpu
