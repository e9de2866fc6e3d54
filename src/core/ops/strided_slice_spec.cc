#include "src/core/ops/strided_slice_spec.h"

#include <algorithm>
#include <bit>
#include <string>

#include "src/core/ops/options.h"

namespace relite {
namespace {

// One input dimension after the spec is expanded.
struct DenseDim {
  int64_t begin = 0, end = 0, stride = 1;
  bool begin_masked = true, end_masked = true, shrink = false;
};

}  // namespace

StridedSliceMasks ParseStridedSliceMasks(const Node& node) {
  StridedSliceMasks masks;
  if (const auto* o = GetOptions<tflite::StridedSliceOptions>(node)) {
    masks.begin = o->begin_mask();
    masks.end = o->end_mask();
    masks.ellipsis = o->ellipsis_mask();
    masks.new_axis = o->new_axis_mask();
    masks.shrink_axis = o->shrink_axis_mask();
    masks.offset = o->offset();
  }
  return masks;
}

Shape ResolvedSlice::OutputShape() const {
  Shape out;
  for (const int g : recipe) {
    if (g >= 0) {
      out.push_back(static_cast<int32_t>(count[static_cast<size_t>(g)]));
    } else if (g == kNewAxis) {
      out.push_back(1);
    }
  }
  return out;
}

StatusOr<ResolvedSlice> ResolveStridedSlice(const Shape& input, const std::vector<int64_t>& begin,
                                            const std::vector<int64_t>& end, const std::vector<int64_t>& strides,
                                            const StridedSliceMasks& masks) {
  if (end.size() != begin.size() || strides.size() != begin.size()) {
    return InvalidArgumentError("begin, end and strides must have the same length, got " + std::to_string(begin.size()) +
                                ", " + std::to_string(end.size()) + " and " + std::to_string(strides.size()));
  }
  const int rank = static_cast<int>(input.size());
  const int sparse_given = static_cast<int>(begin.size());
  if (sparse_given > 30) return InvalidArgumentError("slice spec has " + std::to_string(sparse_given) + " entries (at most 30)");
  if (std::popcount(static_cast<uint32_t>(masks.ellipsis)) > 1) {
    return InvalidArgumentError("ellipsis_mask has more than one bit set");
  }

  // Sparse spec -> one DenseDim per input dimension, plus the recipe of the
  // final shape (dense index, new axis or shrunk).
  ResolvedSlice r;
  int32_t ellipsis = masks.ellipsis & ((1 << sparse_given) - 1);
  int sparse_dims = sparse_given;
  int new_axes_after_ellipsis = 0;
  bool ellipsis_seen = false;
  for (int i = 0; i < sparse_given; ++i) {
    if (ellipsis_seen && (masks.new_axis & (1 << i)) != 0) ++new_axes_after_ellipsis;
    if ((ellipsis & (1 << i)) != 0) ellipsis_seen = true;
  }
  if (!ellipsis_seen) {
    ellipsis |= 1 << sparse_dims;  // an implicit trailing ellipsis
    ++sparse_dims;
  }
  std::vector<DenseDim> dense(static_cast<size_t>(rank));
  int full_index = 0;
  for (int i = 0; i < sparse_dims; ++i) {
    const int32_t bit = 1 << i;
    if ((ellipsis & bit) != 0) {
      const int next = std::min(rank - (sparse_dims - i) + 1 + new_axes_after_ellipsis, rank);
      for (; full_index < next; ++full_index) {
        dense[static_cast<size_t>(full_index)] = DenseDim{};
        r.recipe.push_back(full_index);
      }
    } else if ((masks.new_axis & bit) != 0) {
      r.recipe.push_back(ResolvedSlice::kNewAxis);
    } else {
      if (full_index >= rank) {
        return InvalidArgumentError("slice spec indexes more dimensions than the input's " + std::to_string(rank));
      }
      const size_t k = static_cast<size_t>(i);
      DenseDim& d = dense[static_cast<size_t>(full_index)];
      d.begin = begin[k];
      d.end = end[k];
      d.stride = strides[k];
      d.begin_masked = (masks.begin & bit) != 0;
      d.end_masked = (masks.end & bit) != 0;
      d.shrink = (masks.shrink_axis & bit) != 0;
      r.recipe.push_back(d.shrink ? ResolvedSlice::kShrunk : full_index);
      ++full_index;
    }
  }

  // Resolve each dimension to (first index, count, stride).
  r.first.resize(static_cast<size_t>(rank));
  r.count.resize(static_cast<size_t>(rank));
  r.stride.resize(static_cast<size_t>(rank));
  for (int i = 0; i < rank; ++i) {
    const size_t k = static_cast<size_t>(i);
    const DenseDim& d = dense[k];
    const int64_t dim = input[k];
    if (d.stride == 0) return InvalidArgumentError("stride of dimension " + std::to_string(i) + " is zero");
    int64_t first = 0;
    int64_t count = 0;
    if (d.shrink) {
      if (d.stride < 0) return InvalidArgumentError("shrink_axis dimension " + std::to_string(i) + " needs a positive stride");
      first = d.begin < 0 ? dim + d.begin : d.begin;
      if (first < 0 || first >= dim) {
        return InvalidArgumentError("index " + std::to_string(d.begin) + " of shrunk dimension " + std::to_string(i) +
                                    " is out of bounds for size " + std::to_string(dim));
      }
      count = 1;
    } else {
      // Valid index range for the stride's direction; end is exclusive.
      const int64_t lo = d.stride > 0 ? 0 : -1;
      const int64_t hi = d.stride > 0 ? dim : dim - 1;
      auto canonical = [&](int64_t x, bool masked, bool is_end) {
        if (masked) return (d.stride > 0) == is_end ? hi : lo;
        const int64_t fwd = x < 0 ? dim + x : x;
        return fwd < lo ? lo : (fwd > hi ? hi : fwd);
      };
      first = canonical(d.begin, d.begin_masked, false);
      const int64_t stop = canonical(masks.offset ? d.end + first : d.end, d.end_masked, true);
      const int64_t interval = stop - first;
      if (interval != 0 && (interval < 0) == (d.stride < 0)) {
        count = interval / d.stride + (interval % d.stride != 0 ? 1 : 0);
      }
    }
    r.first[k] = first;
    r.count[k] = count;
    r.stride[k] = d.stride;
  }
  return r;
}

}  // namespace relite
