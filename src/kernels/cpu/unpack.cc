// UNPACK: splits the input along `axis` (in [-rank, rank)) into num tensors
// of rank - 1, one per index of that dimension.
#include <memory>
#include <string>
#include <vector>

#include "src/core/ops/options.h"
#include "src/kernels/cpu/internal/data_movement.h"
#include "src/kernels/cpu/kernels.h"

namespace relite::cpu {
namespace {

class UnpackKernel final : public Kernel {
 public:
  UnpackKernel(int32_t num, int32_t axis) : num_(num), axis_(axis) {}

  Status Prepare(KernelContext& ctx) override {
    RELITE_RETURN_IF_ERROR(CheckArity(ctx, 1, 1, -1));
    const Tensor& input = ctx.input(0);
    RELITE_RETURN_IF_ERROR(CheckCopyableType(ctx, input, "input"));
    const int rank = input.rank();
    RELITE_ASSIGN_OR_RETURN(const int axis, NormalizeAxis(ctx, axis_, rank, "axis"));
    const int32_t dim = input.dim(axis);
    if (num_ != 0 && num_ != dim) {
      return ctx.Error("num is " + std::to_string(num_) + " but dimension " + std::to_string(axis) + " has size " +
                       std::to_string(dim));
    }
    if (ctx.num_outputs() != dim) {
      return ctx.Error("the operator has " + std::to_string(ctx.num_outputs()) + " outputs but dimension " +
                       std::to_string(axis) + " has size " + std::to_string(dim));
    }
    outer_ = DimProduct(input.shape, 0, axis);
    const int64_t row_bytes = DimProduct(input.shape, axis + 1, rank) * static_cast<int64_t>(DataTypeSize(input.type));
    pieces_.assign(static_cast<size_t>(dim), RowPiece{nullptr, row_bytes});
    Shape out_shape = input.shape;
    out_shape.erase(out_shape.begin() + axis);
    for (int i = 0; i < dim; ++i) {
      RELITE_RETURN_IF_ERROR(CheckSameType(ctx, input, "input", ctx.output(i), "output " + std::to_string(i)));
      RELITE_RETURN_IF_ERROR(ctx.ResizeOutput(i, out_shape));
    }
    return Status::Ok();
  }

  Status Eval(KernelContext& ctx) override {
    for (size_t i = 0; i < pieces_.size(); ++i) {
      pieces_[i].data = static_cast<uint8_t*>(ctx.output(static_cast<int>(i)).data);
    }
    SplitRows(ctx, static_cast<const uint8_t*>(ctx.input(0).data), outer_, pieces_.data(),
              static_cast<int>(pieces_.size()));
    return Status::Ok();
  }

 private:
  int32_t num_;
  int32_t axis_;
  int64_t outer_ = 0;
  std::vector<RowPiece> pieces_;
};

}  // namespace

StatusOr<std::unique_ptr<Kernel>> CreateUnpack(const Node& node) {
  int32_t num = 0;
  int32_t axis = 0;
  if (const auto* o = GetOptions<tflite::UnpackOptions>(node)) {
    num = o->num();
    axis = o->axis();
  }
  if (num < 0) return InvalidArgumentError(node.Describe() + ": num is negative");
  return std::unique_ptr<Kernel>(std::make_unique<UnpackKernel>(num, axis));
}

}  // namespace relite::cpu
