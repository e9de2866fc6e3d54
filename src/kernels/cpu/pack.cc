// PACK: stacks values_count inputs of one shape along a new dimension `axis`
// (in [-(rank+1), rank]).
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "src/core/ops/options.h"
#include "src/kernels/cpu/internal/data_movement.h"
#include "src/kernels/cpu/kernels.h"

namespace relite::cpu {
namespace {

class PackKernel final : public Kernel {
 public:
  PackKernel(int32_t values_count, int32_t axis) : values_count_(values_count), axis_(axis) {}

  Status Prepare(KernelContext& ctx) override {
    RELITE_RETURN_IF_ERROR(CheckArity(ctx, 1, std::numeric_limits<int>::max(), 1));
    if (values_count_ != 0 && values_count_ != ctx.num_inputs()) {
      return ctx.Error("values_count is " + std::to_string(values_count_) + " but the operator has " +
                       std::to_string(ctx.num_inputs()) + " inputs");
    }
    const Tensor& first = ctx.input(0);
    const Tensor& output = ctx.output(0);
    RELITE_RETURN_IF_ERROR(CheckCopyableType(ctx, first, "input 0"));
    RELITE_RETURN_IF_ERROR(CheckSameType(ctx, first, "input 0", output, "output"));
    const int rank = first.rank();
    RELITE_ASSIGN_OR_RETURN(const int axis, NormalizeAxis(ctx, axis_, rank + 1, "axis"));
    const bool quantized_8bit = first.type == DataType::kUInt8 || first.type == DataType::kInt8;
    for (int i = 0; i < ctx.num_inputs(); ++i) {
      const std::string name = "input " + std::to_string(i);
      const Tensor& in = ctx.input(i);
      RELITE_RETURN_IF_ERROR(CheckSameType(ctx, first, "input 0", in, name));
      if (in.shape != first.shape) {
        return ctx.Error(name + " shape " + ShapeToString(in.shape) + " differs from input 0 shape " +
                         ShapeToString(first.shape));
      }
      if (quantized_8bit && !SameQuantization(in.quant, output.quant)) {
        return ctx.Unsupported(name + " quantization differs from the output's");
      }
    }
    outer_ = DimProduct(first.shape, 0, axis);
    const int64_t row_bytes = DimProduct(first.shape, axis, rank) * static_cast<int64_t>(DataTypeSize(first.type));
    pieces_.assign(static_cast<size_t>(ctx.num_inputs()), RowPiece{nullptr, row_bytes});

    Shape out_shape = first.shape;
    out_shape.insert(out_shape.begin() + axis, ctx.num_inputs());
    return ctx.ResizeOutput(0, std::move(out_shape));
  }

  Status Eval(KernelContext& ctx) override {
    for (size_t i = 0; i < pieces_.size(); ++i) {
      pieces_[i].data = static_cast<uint8_t*>(ctx.input(static_cast<int>(i)).data);
    }
    ConcatRows(ctx, pieces_.data(), static_cast<int>(pieces_.size()), outer_,
               static_cast<uint8_t*>(ctx.output(0).data));
    return Status::Ok();
  }

 private:
  int32_t values_count_;
  int32_t axis_;
  int64_t outer_ = 0;
  std::vector<RowPiece> pieces_;
};

}  // namespace

StatusOr<std::unique_ptr<Kernel>> CreatePack(const Node& node) {
  int32_t values_count = 0;
  int32_t axis = 0;
  if (const auto* o = GetOptions<tflite::PackOptions>(node)) {
    values_count = o->values_count();
    axis = o->axis();
  }
  if (values_count < 0) return InvalidArgumentError(node.Describe() + ": values_count is negative");
  return std::unique_ptr<Kernel>(std::make_unique<PackKernel>(values_count, axis));
}

}  // namespace relite::cpu
