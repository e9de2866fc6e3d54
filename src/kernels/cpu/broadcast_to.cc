// BROADCAST_TO: broadcasts the input to `shape` (int32 or int64 [N],
// constant) by NumPy rules: input dimensions align to the right, each equal
// to the target's or 1 (then repeated); N >= input rank, at most 8. The
// output is a strided view of the input with stride 0 on repeated dimensions.
#include <memory>
#include <string>
#include <vector>

#include "src/kernels/cpu/internal/data_movement.h"
#include "src/kernels/cpu/internal/value_inputs.h"
#include "src/kernels/cpu/kernels.h"

namespace relite::cpu {
namespace {

class BroadcastToKernel final : public Kernel {
 public:
  Status Prepare(KernelContext& ctx) override {
    RELITE_RETURN_IF_ERROR(CheckArity(ctx, 2, 2, 1));
    const Tensor& input = ctx.input(0);
    const Tensor& output = ctx.output(0);
    RELITE_RETURN_IF_ERROR(CheckCopyableType(ctx, input, "input"));
    RELITE_RETURN_IF_ERROR(CheckSameType(ctx, input, "input", output, "output"));
    RELITE_RETURN_IF_ERROR(CheckSameQuantization(ctx, input, "input", output, "output"));
    std::vector<int64_t> shape;
    RELITE_RETURN_IF_ERROR(ReadShapeInput(ctx, 1, "shape", &shape));
    if (ctx.input(1).rank() != 1) {
      return ctx.Error("shape must be 1-D, got shape " + ShapeToString(ctx.input(1).shape));
    }
    const int out_rank = static_cast<int>(shape.size());
    const int rank = input.rank();
    if (out_rank > kMaxCopyRank) return ctx.Unsupported("output rank " + std::to_string(out_rank) + " (at most 8)");
    if (out_rank < rank) {
      return ctx.Error("shape has " + std::to_string(out_rank) + " dimensions, fewer than the input's " +
                       std::to_string(rank));
    }
    const std::vector<int64_t> strides = RowMajorStrides(input.shape);
    Shape out_shape(static_cast<size_t>(out_rank));
    view_ = StridedView{};
    view_.rank = out_rank;
    for (int d = 0; d < out_rank; ++d) {
      RELITE_ASSIGN_OR_RETURN(out_shape[static_cast<size_t>(d)],
                              ToDimension(ctx, shape[static_cast<size_t>(d)], "shape[" + std::to_string(d) + "]"));
      const int in_d = d - (out_rank - rank);
      view_.size[d] = out_shape[static_cast<size_t>(d)];
      view_.stride[d] = 0;
      if (in_d < 0) continue;
      const int32_t n = input.dim(in_d);
      if (n == out_shape[static_cast<size_t>(d)]) {
        view_.stride[d] = strides[static_cast<size_t>(in_d)];
      } else if (n != 1) {
        return ctx.Error("cannot broadcast input " + ShapeToString(input.shape) + " to " + ShapeToString(out_shape) +
                         ": dimension " + std::to_string(in_d) + " is " + std::to_string(n) + ", not 1 or " +
                         std::to_string(out_shape[static_cast<size_t>(d)]));
      }
    }
    return ctx.ResizeOutput(0, std::move(out_shape));
  }

  Status Eval(KernelContext& ctx) override {
    Tensor& output = ctx.output(0);
    if (output.num_elements() == 0) return Status::Ok();
    const Tensor& input = ctx.input(0);
    CopyStridedView(ctx, view_, DataTypeSize(input.type), static_cast<const uint8_t*>(input.data),
                    static_cast<uint8_t*>(output.data));
    return Status::Ok();
  }

 private:
  StridedView view_;
};

}  // namespace

StatusOr<std::unique_ptr<Kernel>> CreateBroadcastTo(const Node&) {
  return std::unique_ptr<Kernel>(std::make_unique<BroadcastToKernel>());
}

}  // namespace relite::cpu
