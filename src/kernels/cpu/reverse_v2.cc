// REVERSE_V2: reverses the input along the dimensions listed in `axis`
// (int32 or int64 [k], values in [-rank, rank), no repeats). The axis
// values do not change the output shape, so a runtime axis tensor works: it
// is read in Eval. The output is a strided view of the input with negative
// strides on the reversed dimensions.
#include <memory>
#include <string>
#include <vector>

#include "src/kernels/cpu/internal/data_movement.h"
#include "src/kernels/cpu/internal/value_inputs.h"
#include "src/kernels/cpu/kernels.h"

namespace relite::cpu {
namespace {

class ReverseV2Kernel final : public Kernel {
 public:
  Status Prepare(KernelContext& ctx) override {
    RELITE_RETURN_IF_ERROR(CheckArity(ctx, 2, 2, 1));
    const Tensor& input = ctx.input(0);
    const Tensor& output = ctx.output(0);
    RELITE_RETURN_IF_ERROR(CheckCopyableType(ctx, input, "input"));
    RELITE_RETURN_IF_ERROR(CheckSameType(ctx, input, "input", output, "output"));
    RELITE_RETURN_IF_ERROR(CheckSameQuantization(ctx, input, "input", output, "output"));
    const Tensor& axis = ctx.input(1);
    if (axis.type != DataType::kInt32 && axis.type != DataType::kInt64) {
      return ctx.Error("axis must be int32 or int64, got " + DataTypeName(axis.type));
    }
    if (axis.rank() > 1) return ctx.Error("axis must be a scalar or 1-D, got shape " + ShapeToString(axis.shape));
    if (input.rank() > kMaxCopyRank) return ctx.Unsupported("rank " + std::to_string(input.rank()) + " (at most 8)");
    if (axis.num_elements() > input.rank()) {
      return ctx.Error("axis lists " + std::to_string(axis.num_elements()) + " dimensions, more than the rank " +
                       std::to_string(input.rank()));
    }
    if (axis.is_constant()) {
      bool reversed[kMaxCopyRank];
      RELITE_RETURN_IF_ERROR(ReadAxes(ctx, reversed));
    }
    return ctx.ResizeOutput(0, input.shape);
  }

  Status Eval(KernelContext& ctx) override {
    const Tensor& input = ctx.input(0);
    Tensor& output = ctx.output(0);
    bool reversed[kMaxCopyRank];
    RELITE_RETURN_IF_ERROR(ReadAxes(ctx, reversed));
    if (output.num_elements() == 0) return Status::Ok();
    const int64_t esize = static_cast<int64_t>(DataTypeSize(input.type));
    StridedView view;
    view.rank = input.rank();
    int64_t stride = 1;
    int64_t origin = 0;  // element (0, ..., 0) of the view, in input elements
    for (int d = view.rank - 1; d >= 0; --d) {
      view.size[d] = input.dim(d);
      view.stride[d] = reversed[d] ? -stride : stride;
      if (reversed[d]) origin += (input.dim(d) - 1) * stride;
      stride *= input.dim(d);
    }
    CopyStridedView(ctx, view, static_cast<size_t>(esize), static_cast<const uint8_t*>(input.data) + origin * esize,
                    static_cast<uint8_t*>(output.data));
    return Status::Ok();
  }

 private:
  // reversed[d] for every dimension of the input, from the axis tensor.
  Status ReadAxes(KernelContext& ctx, bool* reversed) {
    const Tensor& axis = ctx.input(1);
    const int rank = ctx.input(0).rank();
    for (int d = 0; d < kMaxCopyRank; ++d) reversed[d] = false;
    const int64_t n = axis.num_elements();
    for (int64_t i = 0; i < n; ++i) {
      const int64_t a = axis.type == DataType::kInt32 ? axis.data_as<int32_t>()[i] : axis.data_as<int64_t>()[i];
      RELITE_ASSIGN_OR_RETURN(const int d, NormalizeAxis(ctx, a, rank, "axis"));
      if (reversed[d]) return ctx.Error("axis lists dimension " + std::to_string(d) + " twice");
      reversed[d] = true;
    }
    return Status::Ok();
  }
};

}  // namespace

StatusOr<std::unique_ptr<Kernel>> CreateReverseV2(const Node&) {
  return std::unique_ptr<Kernel>(std::make_unique<ReverseV2Kernel>());
}

}  // namespace relite::cpu
