// SLICE: the block starting at the constant `begin` with the constant `size`
// per dimension; size -1 means "to the end of the dimension".
#include <memory>
#include <string>
#include <vector>

#include "src/kernels/cpu/internal/data_movement.h"
#include "src/kernels/cpu/kernels.h"

namespace relite::cpu {
namespace {

class SliceKernel final : public Kernel {
 public:
  Status Prepare(KernelContext& ctx) override {
    RELITE_RETURN_IF_ERROR(CheckArity(ctx, 3, 3, 1));
    const Tensor& input = ctx.input(0);
    RELITE_RETURN_IF_ERROR(CheckCopyableType(ctx, input, "input"));
    RELITE_RETURN_IF_ERROR(CheckSameType(ctx, input, "input", ctx.output(0), "output"));
    const int rank = input.rank();
    if (rank > kMaxCopyRank) return ctx.Unsupported("rank " + std::to_string(rank) + " (at most 8)");
    std::vector<int64_t> begin, size;
    RELITE_RETURN_IF_ERROR(ReadConstantInts(ctx, 1, "begin", &begin));
    RELITE_RETURN_IF_ERROR(ReadConstantInts(ctx, 2, "size", &size));
    if (ctx.input(1).rank() != 1 || static_cast<int>(begin.size()) != rank) {
      return ctx.Error("begin must be 1-D with " + std::to_string(rank) + " entries, got shape " +
                       ShapeToString(ctx.input(1).shape));
    }
    if (ctx.input(2).rank() != 1 || static_cast<int>(size.size()) != rank) {
      return ctx.Error("size must be 1-D with " + std::to_string(rank) + " entries, got shape " +
                       ShapeToString(ctx.input(2).shape));
    }
    const std::vector<int64_t> strides = RowMajorStrides(input.shape);
    view_ = StridedView{};
    view_.rank = rank;
    origin_ = 0;
    Shape out_shape(static_cast<size_t>(rank));
    for (int d = 0; d < rank; ++d) {
      const size_t k = static_cast<size_t>(d);
      const int64_t dim = input.dim(d);
      const int64_t b = begin[k];
      int64_t s = size[k];
      if (b < 0 || b > dim) {
        return ctx.Error("begin[" + std::to_string(d) + "] = " + std::to_string(b) + " is outside [0, " +
                         std::to_string(dim) + "]");
      }
      if (s == -1) s = dim - b;
      if (s < 0 || b + s > dim) {
        return ctx.Error("size[" + std::to_string(d) + "] = " + std::to_string(size[k]) + " with begin " +
                         std::to_string(b) + " exceeds dimension size " + std::to_string(dim));
      }
      out_shape[k] = static_cast<int32_t>(s);
      view_.size[d] = s;
      view_.stride[d] = strides[k];
      origin_ += b * strides[k];
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
  StridedView view_;
  int64_t origin_ = 0;  // elements
};

}  // namespace

StatusOr<std::unique_ptr<Kernel>> CreateSlice(const Node&) {
  return std::unique_ptr<Kernel>(std::make_unique<SliceKernel>());
}

}  // namespace relite::cpu
