// EXPAND_DIMS: inserts a size-1 dimension at the constant axis (input 1, in
// [-(rank+1), rank]). The output is a copy of the input bytes.
#include <memory>
#include <string>
#include <vector>

#include "src/kernels/cpu/internal/data_movement.h"
#include "src/kernels/cpu/kernels.h"

namespace relite::cpu {
namespace {

class ExpandDimsKernel final : public Kernel {
 public:
  Status Prepare(KernelContext& ctx) override {
    RELITE_RETURN_IF_ERROR(CheckArity(ctx, 2, 2, 1));
    const Tensor& input = ctx.input(0);
    RELITE_RETURN_IF_ERROR(CheckCopyableType(ctx, input, "input"));
    RELITE_RETURN_IF_ERROR(CheckSameType(ctx, input, "input", ctx.output(0), "output"));
    std::vector<int64_t> axis_values;
    RELITE_RETURN_IF_ERROR(ReadConstantInts(ctx, 1, "axis", &axis_values));
    if (axis_values.size() != 1) {
      return ctx.Error("axis must hold exactly one value, got " + std::to_string(axis_values.size()));
    }
    RELITE_ASSIGN_OR_RETURN(const int axis, NormalizeAxis(ctx, axis_values[0], input.rank() + 1, "axis"));
    Shape out_shape = input.shape;
    out_shape.insert(out_shape.begin() + axis, 1);
    return ctx.ResizeOutput(0, std::move(out_shape));
  }

  Status Eval(KernelContext& ctx) override {
    const Tensor& input = ctx.input(0);
    const size_t bytes = static_cast<size_t>(input.num_elements()) * DataTypeSize(input.type);
    ParallelMemcpy(ctx, ctx.output(0).data, input.data, bytes);
    return Status::Ok();
  }
};

}  // namespace

StatusOr<std::unique_ptr<Kernel>> CreateExpandDims(const Node&) {
  return std::unique_ptr<Kernel>(std::make_unique<ExpandDimsKernel>());
}

}  // namespace relite::cpu
