// STRIDED_SLICE with the CPU kernel's (TensorFlow's) semantics: the constant
// begin/end/strides spec is expanded (ellipsis, new axes, shrunk axes,
// begin/end masks, negative indices, clamping, the `offset` option) to a
// first index, count and step per input dimension; the GPU then walks those
// extents (internal/remap.h). Negative steps work like positive ones.
#include <algorithm>
#include <bit>
#include <cstdint>

#include <fmt/format.h>

#include "src/core/ops/options.h"
#include "src/delegates/gpu/ops/emitters.h"
#include "src/delegates/gpu/ops/internal/remap.h"

namespace relite::gpu {
namespace {

struct DenseDim {
  int64_t begin = 0, end = 0, stride = 1;
  bool begin_masked = true, end_masked = true, shrink = false;
};

}  // namespace

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
  if (end.size() != begin.size() || strides.size() != begin.size()) {
    return InvalidArgumentError(fmt::format("{}: begin, end and strides have different lengths", where));
  }
  int32_t begin_mask = 0, end_mask = 0, ellipsis_mask = 0, new_axis_mask = 0, shrink_mask = 0;
  bool offset = false;
  if (const auto* o = GetOptions<tflite::StridedSliceOptions>(b.node())) {
    begin_mask = o->begin_mask();
    end_mask = o->end_mask();
    ellipsis_mask = o->ellipsis_mask();
    new_axis_mask = o->new_axis_mask();
    shrink_mask = o->shrink_axis_mask();
    offset = o->offset();
  }
  const Shape& in_shape = b.tensor(in).shape;
  const int rank = static_cast<int>(in_shape.size());
  const int sparse_given = static_cast<int>(begin.size());
  if (sparse_given > 30) return InvalidArgumentError(fmt::format("{}: the slice spec has more than 30 entries", where));
  if (std::popcount(static_cast<uint32_t>(ellipsis_mask)) > 1) {
    return InvalidArgumentError(fmt::format("{}: ellipsis_mask has more than one bit set", where));
  }

  // Sparse spec -> one DenseDim per input dimension (as the CPU kernel).
  int32_t ellipsis = ellipsis_mask & ((1 << sparse_given) - 1);
  int sparse_dims = sparse_given;
  int new_axes_after_ellipsis = 0;
  bool ellipsis_seen = false;
  for (int i = 0; i < sparse_given; ++i) {
    if (ellipsis_seen && (new_axis_mask & (1 << i)) != 0) ++new_axes_after_ellipsis;
    if ((ellipsis & (1 << i)) != 0) ellipsis_seen = true;
  }
  if (!ellipsis_seen) {
    ellipsis |= 1 << sparse_dims;
    ++sparse_dims;
  }
  std::vector<DenseDim> dense(static_cast<size_t>(rank));
  std::vector<int> recipe;  // per output dimension: the input dimension, or -1 for a new axis
  int full_index = 0;
  for (int i = 0; i < sparse_dims; ++i) {
    const int32_t bit = 1 << i;
    if ((ellipsis & bit) != 0) {
      const int next = std::min(rank - (sparse_dims - i) + 1 + new_axes_after_ellipsis, rank);
      for (; full_index < next; ++full_index) {
        dense[static_cast<size_t>(full_index)] = DenseDim{};
        recipe.push_back(full_index);
      }
    } else if ((new_axis_mask & bit) != 0) {
      recipe.push_back(-1);
    } else {
      if (full_index >= rank) return InvalidArgumentError(fmt::format("{}: the slice spec indexes more dimensions than the input has", where));
      const size_t k = static_cast<size_t>(i);
      DenseDim& d = dense[static_cast<size_t>(full_index++)];
      d.begin = begin[k];
      d.end = end[k];
      d.stride = strides[k];
      d.begin_masked = (begin_mask & bit) != 0;
      d.end_masked = (end_mask & bit) != 0;
      d.shrink = (shrink_mask & bit) != 0;
      if (!d.shrink) recipe.push_back(full_index - 1);
    }
  }

  // Each dimension -> (first, count, step), in GPU dimensions.
  Remap m;
  Shape counts(static_cast<size_t>(rank));
  for (int i = 0; i < rank; ++i) {
    const DenseDim& d = dense[static_cast<size_t>(i)];
    const int64_t dim = in_shape[static_cast<size_t>(i)];
    if (d.stride == 0) return InvalidArgumentError(fmt::format("{}: the stride of dimension {} is zero", where, i));
    int64_t first = 0, count = 0;
    if (d.shrink) {
      if (d.stride < 0) return InvalidArgumentError(fmt::format("{}: shrunk dimension {} needs a positive stride", where, i));
      first = d.begin < 0 ? dim + d.begin : d.begin;
      if (first < 0 || first >= dim) return InvalidArgumentError(fmt::format("{}: index {} of shrunk dimension {} is out of bounds", where, d.begin, i));
      count = 1;
    } else {
      const int64_t lo = d.stride > 0 ? 0 : -1;
      const int64_t hi = d.stride > 0 ? dim : dim - 1;
      auto canonical = [&](int64_t x, bool masked, bool is_end) {
        if (masked) return (d.stride > 0) == is_end ? hi : lo;
        const int64_t fwd = x < 0 ? dim + x : x;
        return fwd < lo ? lo : (fwd > hi ? hi : fwd);
      };
      first = canonical(d.begin, d.begin_masked, false);
      const int64_t stop = canonical(offset ? d.end + first : d.end, d.end_masked, true);
      const int64_t interval = stop - first;
      if (interval != 0 && (interval < 0) == (d.stride < 0)) count = interval / d.stride + (interval % d.stride != 0 ? 1 : 0);
    }
    if (count <= 0) return NotOnGpu("the slice is empty");
    if (d.stride > INT32_MAX || d.stride < -INT32_MAX) return NotOnGpu("the stride is too large");
    counts[static_cast<size_t>(i)] = static_cast<int32_t>(count);
    const size_t g = static_cast<size_t>(GpuAxis(rank, i));
    m.begin[g] = static_cast<int32_t>(first);
    m.stride[g] = static_cast<int32_t>(d.stride);
  }
  RELITE_ASSIGN_OR_RETURN(m.walk, ToGpuShape(counts));
  // Shrunk and new axes only drop or add extent-1 dimensions: the output's
  // elements are the walk's, in order. The declared shape must agree.
  Shape expected;
  for (int g : recipe) expected.push_back(g < 0 ? 1 : counts[static_cast<size_t>(g)]);
  if (expected != b.tensor(out).shape) {
    return InvalidArgumentError(fmt::format("{}: declared output shape {} does not match the slice of {}, {}", where,
                                            ShapeToString(b.tensor(out).shape), ShapeToString(in_shape), ShapeToString(expected)));
  }
  return EmitRemap(b, in, out, m);
}

}  // namespace relite::gpu
