// SPLIT: cuts input 1 into num_splits equal parts along the constant axis
// given by input 0 (negative counts from the end).
#include <memory>
#include <string>
#include <vector>

#include "src/core/ops/options.h"
#include "src/kernels/cpu/internal/data_movement.h"
#include "src/kernels/cpu/kernels.h"

namespace relite::cpu {
namespace {

class SplitKernel final : public Kernel {
 public:
  explicit SplitKernel(int32_t num_splits) : num_splits_(num_splits) {}

  Status Prepare(KernelContext& ctx) override {
    RELITE_RETURN_IF_ERROR(CheckArity(ctx, 2, 2, num_splits_));
    const Tensor& input = ctx.input(1);
    RELITE_RETURN_IF_ERROR(CheckCopyableType(ctx, input, "input"));
    std::vector<int64_t> axis_values;
    RELITE_RETURN_IF_ERROR(ReadConstantInts(ctx, 0, "axis", &axis_values));
    if (axis_values.size() != 1) return ctx.Error("axis must hold exactly one value");
    const int rank = input.rank();
    RELITE_ASSIGN_OR_RETURN(const int axis, NormalizeAxis(ctx, axis_values[0], rank, "axis"));
    const int32_t dim = input.dim(axis);
    if (dim % num_splits_ != 0) {
      return ctx.Error("dimension " + std::to_string(axis) + " of size " + std::to_string(dim) +
                       " does not divide into " + std::to_string(num_splits_) + " splits");
    }
    outer_ = DimProduct(input.shape, 0, axis);
    const int64_t inner = DimProduct(input.shape, axis + 1, rank);
    const int32_t part = dim / num_splits_;
    pieces_.assign(static_cast<size_t>(num_splits_),
                   RowPiece{nullptr, part * inner * static_cast<int64_t>(DataTypeSize(input.type))});
    Shape out_shape = input.shape;
    out_shape[static_cast<size_t>(axis)] = part;
    for (int i = 0; i < num_splits_; ++i) {
      RELITE_RETURN_IF_ERROR(
          CheckSameType(ctx, input, "input", ctx.output(i), "output " + std::to_string(i)));
      RELITE_RETURN_IF_ERROR(ctx.ResizeOutput(i, out_shape));
    }
    return Status::Ok();
  }

  Status Eval(KernelContext& ctx) override {
    for (size_t i = 0; i < pieces_.size(); ++i) {
      pieces_[i].data = static_cast<uint8_t*>(ctx.output(static_cast<int>(i)).data);
    }
    SplitRows(ctx, static_cast<const uint8_t*>(ctx.input(1).data), outer_, pieces_.data(),
              static_cast<int>(pieces_.size()));
    return Status::Ok();
  }

 private:
  int32_t num_splits_;
  int64_t outer_ = 0;
  std::vector<RowPiece> pieces_;
};

}  // namespace

StatusOr<std::unique_ptr<Kernel>> CreateSplit(const Node& node) {
  int32_t num_splits = 0;
  if (const auto* o = GetOptions<tflite::SplitOptions>(node)) num_splits = o->num_splits();
  if (num_splits < 1) {
    return InvalidArgumentError(node.Describe() + ": num_splits must be >= 1, got " + std::to_string(num_splits));
  }
  return std::unique_ptr<Kernel>(std::make_unique<SplitKernel>(num_splits));
}

}  // namespace relite::cpu
