// STRIDED_SLICE: the spec is resolved by src/core/ops/strided_slice_spec.h
// (TensorFlow's semantics, shared with the GPU delegate); the kernel copies
// the resulting strided view.
#include <memory>
#include <string>
#include <vector>

#include "src/core/ops/strided_slice_spec.h"
#include "src/kernels/cpu/internal/data_movement.h"
#include "src/kernels/cpu/kernels.h"

namespace relite::cpu {
namespace {

class StridedSliceKernel final : public Kernel {
 public:
  explicit StridedSliceKernel(StridedSliceMasks masks) : masks_(masks) {}

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
    auto slice = ResolveStridedSlice(input.shape, begin, end, strides, masks_);
    if (!slice.ok()) return ctx.Error(slice.status().message());

    const std::vector<int64_t> in_strides = RowMajorStrides(input.shape);
    view_ = StridedView{};
    view_.rank = rank;
    origin_ = 0;
    for (int i = 0; i < rank; ++i) {
      const size_t k = static_cast<size_t>(i);
      view_.size[i] = slice->count[k];
      view_.stride[i] = slice->stride[k] * in_strides[k];
      if (slice->count[k] > 0) origin_ += slice->first[k] * in_strides[k];
    }
    return ctx.ResizeOutput(0, slice->OutputShape());
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
  StridedSliceMasks masks_;
  StridedView view_;
  int64_t origin_ = 0;  // elements
};

}  // namespace

StatusOr<std::unique_ptr<Kernel>> CreateStridedSlice(const Node& node) {
  return std::unique_ptr<Kernel>(std::make_unique<StridedSliceKernel>(ParseStridedSliceMasks(node)));
}

}  // namespace relite::cpu
