// FILL: a tensor of shape `dims` (int32 or int64 [N], constant, every entry
// >= 0) with every element equal to the scalar `value`. The output dtype is
// the value's; any fixed-size dtype works (bytes are replicated). A
// quantized value must share the output's quantization.
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "src/kernels/cpu/internal/data_movement.h"
#include "src/kernels/cpu/internal/value_inputs.h"
#include "src/kernels/cpu/kernels.h"

namespace relite::cpu {
namespace {

class FillKernel final : public Kernel {
 public:
  Status Prepare(KernelContext& ctx) override {
    RELITE_RETURN_IF_ERROR(CheckArity(ctx, 2, 2, 1));
    const Tensor& value = ctx.input(1);
    const Tensor& output = ctx.output(0);
    RELITE_RETURN_IF_ERROR(CheckCopyableType(ctx, value, "value"));
    RELITE_RETURN_IF_ERROR(CheckSameType(ctx, value, "value", output, "output"));
    RELITE_RETURN_IF_ERROR(CheckSameQuantization(ctx, value, "value", output, "output"));
    if (value.num_elements() != 1 || value.rank() > 1) {
      return ctx.Error("value must be a scalar, got shape " + ShapeToString(value.shape));
    }
    if (DataTypeSize(value.type) > 16) return ctx.Unsupported("element size " + std::to_string(DataTypeSize(value.type)));
    std::vector<int64_t> dims;
    RELITE_RETURN_IF_ERROR(ReadShapeInput(ctx, 0, "dims", &dims));
    if (ctx.input(0).rank() != 1) return ctx.Error("dims must be 1-D, got shape " + ShapeToString(ctx.input(0).shape));
    Shape out_shape(dims.size());
    for (size_t d = 0; d < dims.size(); ++d) {
      RELITE_ASSIGN_OR_RETURN(out_shape[d], ToDimension(ctx, dims[d], "dims[" + std::to_string(d) + "]"));
    }
    return ctx.ResizeOutput(0, std::move(out_shape));
  }

  Status Eval(KernelContext& ctx) override {
    Tensor& output = ctx.output(0);
    const int64_t n = output.num_elements();
    const size_t esize = DataTypeSize(output.type);
    uint8_t value[16];
    std::memcpy(value, ctx.input(1).data, esize);
    auto* dst = static_cast<uint8_t*>(output.data);
    ParallelRows(ctx, n, static_cast<int64_t>(esize), [&](int64_t begin, int64_t end) {
      FillElements(dst + begin * static_cast<int64_t>(esize), end - begin, value, esize);
    });
    return Status::Ok();
  }
};

}  // namespace

StatusOr<std::unique_ptr<Kernel>> CreateFill(const Node&) { return std::unique_ptr<Kernel>(std::make_unique<FillKernel>()); }

}  // namespace relite::cpu
