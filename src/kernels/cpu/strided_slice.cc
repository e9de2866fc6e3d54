// STRIDED_SLICE with TensorFlow's semantics: the constant begin/end/strides
// form a slice spec in which ellipsis_mask expands to as many full
// dimensions as needed, new_axis_mask inserts size-1 dimensions,
// shrink_axis_mask picks one index (dropping the dimension), begin/end masks
// mean "from the start / to the end in the stride's direction", negative
// indices count from the end and out-of-range bounds clamp. TFLite's `offset`
// option makes `end` relative to the resolved begin.
#include <bit>
#include <memory>
#include <string>
#include <vector>

#include "src/core/ops/options.h"
#include "src/kernels/cpu/internal/data_movement.h"
#include "src/kernels/cpu/kernels.h"

namespace relite::cpu {
namespace {

struct SliceMasks {
  int32_t begin = 0, end = 0, ellipsis = 0, new_axis = 0, shrink_axis = 0;
  bool offset = false;
};

// One input dimension after the spec is expanded.
struct DenseDim {
  int64_t begin = 0, end = 0, stride = 1;
  bool begin_masked = true, end_masked = true, shrink = false;
};

constexpr int kNewAxis = -1;
constexpr int kShrunk = -2;

class StridedSliceKernel final : public Kernel {
 public:
  explicit StridedSliceKernel(SliceMasks masks) : masks_(masks) {}

  Status Prepare(KernelContext& ctx) override {
    RELITE_RETURN_IF_ERROR(CheckArity(ctx, 4, 4, 1));
    const Tensor& input = ctx.input(0);
    RELITE_RETURN_IF_ERROR(CheckCopyableType(ctx, input, "input"));
    RELITE_RETURN_IF_ERROR(CheckSameType(ctx, input, "input", ctx.output(0), "output"));
    const int rank = input.rank();
    if (rank > kMaxCopyRank) return ctx.Unsupported("rank " + std::to_string(rank) + " (at most 8)");

    std::vector<int64_t> begin, end, strides;
    RELITE_RETURN_IF_ERROR(ReadConstantInts(ctx, 1, "begin", &begin));
    RELITE_RETURN_IF_ERROR(ReadConstantInts(ctx, 2, "end", &end));
    RELITE_RETURN_IF_ERROR(ReadConstantInts(ctx, 3, "strides", &strides));
    for (int i = 1; i <= 3; ++i) {
      if (ctx.input(i).rank() != 1) {
        return ctx.Error(std::string(i == 1 ? "begin" : i == 2 ? "end" : "strides") + " must be 1-D, got shape " +
                         ShapeToString(ctx.input(i).shape));
      }
    }
    if (end.size() != begin.size() || strides.size() != begin.size()) {
      return ctx.Error("begin, end and strides must have the same length, got " + std::to_string(begin.size()) +
                       ", " + std::to_string(end.size()) + " and " + std::to_string(strides.size()));
    }
    const int sparse_given = static_cast<int>(begin.size());
    if (sparse_given > 30) return ctx.Error("slice spec has " + std::to_string(sparse_given) + " entries (at most 30)");
    if (std::popcount(static_cast<uint32_t>(masks_.ellipsis)) > 1) {
      return ctx.Error("ellipsis_mask has more than one bit set");
    }

    // Sparse spec -> one DenseDim per input dimension, plus the recipe of
    // the final shape (dense index, new axis or shrunk).
    int32_t ellipsis = masks_.ellipsis & ((1 << sparse_given) - 1);
    int sparse_dims = sparse_given;
    int new_axes_after_ellipsis = 0;
    bool ellipsis_seen = false;
    for (int i = 0; i < sparse_given; ++i) {
      if (ellipsis_seen && (masks_.new_axis & (1 << i)) != 0) ++new_axes_after_ellipsis;
      if ((ellipsis & (1 << i)) != 0) ellipsis_seen = true;
    }
    if (!ellipsis_seen) {
      ellipsis |= 1 << sparse_dims;  // an implicit trailing ellipsis
      ++sparse_dims;
    }
    std::vector<DenseDim> dense(static_cast<size_t>(rank));
    std::vector<int> final_recipe;
    int full_index = 0;
    for (int i = 0; i < sparse_dims; ++i) {
      const int32_t bit = 1 << i;
      if ((ellipsis & bit) != 0) {
        const int next = std::min(rank - (sparse_dims - i) + 1 + new_axes_after_ellipsis, rank);
        for (; full_index < next; ++full_index) {
          dense[static_cast<size_t>(full_index)] = DenseDim{};
          final_recipe.push_back(full_index);
        }
      } else if ((masks_.new_axis & bit) != 0) {
        final_recipe.push_back(kNewAxis);
      } else {
        if (full_index >= rank) {
          return ctx.Error("slice spec indexes more dimensions than the input's " + std::to_string(rank));
        }
        const size_t k = static_cast<size_t>(i);
        DenseDim& d = dense[static_cast<size_t>(full_index)];
        d.begin = begin[k];
        d.end = end[k];
        d.stride = strides[k];
        d.begin_masked = (masks_.begin & bit) != 0;
        d.end_masked = (masks_.end & bit) != 0;
        d.shrink = (masks_.shrink_axis & bit) != 0;
        final_recipe.push_back(d.shrink ? kShrunk : full_index);
        ++full_index;
      }
    }

    // Resolve each dimension to (first index, count, stride).
    const std::vector<int64_t> in_strides = RowMajorStrides(input.shape);
    std::vector<int64_t> sizes(static_cast<size_t>(rank));
    view_ = StridedView{};
    view_.rank = rank;
    origin_ = 0;
    for (int i = 0; i < rank; ++i) {
      const size_t k = static_cast<size_t>(i);
      const DenseDim& d = dense[k];
      const int64_t dim = input.dim(i);
      if (d.stride == 0) return ctx.Error("stride of dimension " + std::to_string(i) + " is zero");
      int64_t first = 0;
      int64_t count = 0;
      if (d.shrink) {
        if (d.stride < 0) {
          return ctx.Error("shrink_axis dimension " + std::to_string(i) + " needs a positive stride");
        }
        first = d.begin < 0 ? dim + d.begin : d.begin;
        if (first < 0 || first >= dim) {
          return ctx.Error("index " + std::to_string(d.begin) + " of shrunk dimension " + std::to_string(i) +
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
        const int64_t stop = canonical(masks_.offset ? d.end + first : d.end, d.end_masked, true);
        const int64_t interval = stop - first;
        if (interval != 0 && (interval < 0) == (d.stride < 0)) {
          count = interval / d.stride + (interval % d.stride != 0 ? 1 : 0);
        }
      }
      sizes[k] = count;
      view_.size[i] = count;
      view_.stride[i] = d.stride * in_strides[k];
      if (count > 0) origin_ += first * in_strides[k];
    }

    Shape out_shape;
    for (const int g : final_recipe) {
      if (g >= 0) {
        out_shape.push_back(static_cast<int32_t>(sizes[static_cast<size_t>(g)]));
      } else if (g == kNewAxis) {
        out_shape.push_back(1);
      }
    }
    return ctx.ResizeOutput(0, std::move(out_shape));
  }

  Status Eval(KernelContext& ctx) override {
    const Tensor& input = ctx.input(0);
    if (view_.num_elements() == 0) return Status::Ok();
    const size_t esize = DataTypeSize(input.type);
    CopyStridedView(ctx, view_, esize, static_cast<const uint8_t*>(input.data) + origin_ * static_cast<int64_t>(esize),
                    static_cast<uint8_t*>(ctx.output(0).data));
    return Status::Ok();
  }

 private:
  SliceMasks masks_;
  StridedView view_;
  int64_t origin_ = 0;  // elements
};

}  // namespace

StatusOr<std::unique_ptr<Kernel>> CreateStridedSlice(const Node& node) {
  SliceMasks masks;
  if (const auto* o = GetOptions<tflite::StridedSliceOptions>(node)) {
    masks.begin = o->begin_mask();
    masks.end = o->end_mask();
    masks.ellipsis = o->ellipsis_mask();
    masks.new_axis = o->new_axis_mask();
    masks.shrink_axis = o->shrink_axis_mask();
    masks.offset = o->offset();
  }
  return std::unique_ptr<Kernel>(std::make_unique<StridedSliceKernel>(masks));
}

}  // namespace relite::cpu
