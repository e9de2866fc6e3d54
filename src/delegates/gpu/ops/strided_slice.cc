// STRIDED_SLICE: the spec is resolved as on the CPU
// (src/core/ops/strided_slice_spec.h) to a first index, count and step per
// input dimension; the GPU then walks those extents (internal/remap.h).
// Negative steps work like positive ones.
#include <cstdint>

#include <fmt/format.h>

#include "src/core/ops/strided_slice_spec.h"
#include "src/delegates/gpu/ops/emitters.h"
#include "src/delegates/gpu/ops/internal/remap.h"

namespace relite::gpu {

Status EmitStridedSlice(OpBuilder& b) {
  RELITE_ASSIGN_OR_RETURN(int in, b.Input(0));
  RELITE_ASSIGN_OR_RETURN(int begin_t, b.Input(1));
  RELITE_ASSIGN_OR_RETURN(int end_t, b.Input(2));
  RELITE_ASSIGN_OR_RETURN(int strides_t, b.Input(3));
  RELITE_ASSIGN_OR_RETURN(int out, b.Output(0));
  RELITE_RETURN_IF_ERROR(b.RequireFloat(in, "the input"));
  RELITE_RETURN_IF_ERROR(b.RequireFloat(out, "the output"));
  RELITE_RETURN_IF_ERROR(b.Shape(in).status());
  RELITE_RETURN_IF_ERROR(b.Shape(out).status());
  RELITE_ASSIGN_OR_RETURN(std::vector<int64_t> begin, b.ConstantInts(begin_t, "begin"));
  RELITE_ASSIGN_OR_RETURN(std::vector<int64_t> end, b.ConstantInts(end_t, "end"));
  RELITE_ASSIGN_OR_RETURN(std::vector<int64_t> strides, b.ConstantInts(strides_t, "strides"));
  const std::string where = b.node().Describe();
  const Shape& in_shape = b.tensor(in).shape;
  const int rank = static_cast<int>(in_shape.size());
  auto slice = ResolveStridedSlice(in_shape, begin, end, strides, ParseStridedSliceMasks(b.node()));
  if (!slice.ok()) return InvalidArgumentError(fmt::format("{}: {}", where, slice.status().message()));

  // Each dimension -> (first, count, step), in GPU dimensions.
  Remap m;
  Shape counts(static_cast<size_t>(rank));
  for (int i = 0; i < rank; ++i) {
    const size_t k = static_cast<size_t>(i);
    if (slice->count[k] <= 0) return NotOnGpu("the slice is empty");
    if (slice->stride[k] > INT32_MAX || slice->stride[k] < -INT32_MAX) return NotOnGpu("the stride is too large");
    counts[k] = static_cast<int32_t>(slice->count[k]);
    const size_t g = static_cast<size_t>(GpuAxis(rank, i));
    m.begin[g] = static_cast<int32_t>(slice->first[k]);
    m.stride[g] = static_cast<int32_t>(slice->stride[k]);
  }
  RELITE_ASSIGN_OR_RETURN(m.walk, ToGpuShape(counts));
  // Shrunk and new axes only drop or add extent-1 dimensions: the output's
  // elements are the walk's, in order. The declared shape must agree.
  const Shape expected = slice->OutputShape();
  if (expected != b.tensor(out).shape) {
    return InvalidArgumentError(fmt::format("{}: declared output shape {} does not match the slice of {}, {}", where,
                                            ShapeToString(b.tensor(out).shape), ShapeToString(in_shape), ShapeToString(expected)));
  }
  return EmitRemap(b, in, out, m);
}

}  // namespace relite::gpu
