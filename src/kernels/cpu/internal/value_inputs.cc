#include "src/kernels/cpu/internal/value_inputs.h"

#include <limits>

#include "src/kernels/cpu/internal/data_movement.h"

namespace relite::cpu {

Status RequireConstantInput(KernelContext& ctx, int index, const std::string& what) {
  if (!ctx.has_input(index)) return ctx.Error(what + " (input " + std::to_string(index) + ") is missing");
  // Not known yet: the interpreter prepares the node again at Invoke.
  if (!ctx.InputValuesReady(index)) return ctx.NeedInputValues(index);
  return Status::Ok();
}

Status ReadShapeInput(KernelContext& ctx, int index, const std::string& what, std::vector<int64_t>* values) {
  if (!ctx.has_input(index)) return ctx.Error(what + " (input " + std::to_string(index) + ") is missing");
  const Tensor& t = ctx.input(index);
  if (t.type != DataType::kInt32 && t.type != DataType::kInt64) {
    return ctx.Error(what + " must be int32 or int64, got " + DataTypeName(t.type));
  }
  RELITE_RETURN_IF_ERROR(RequireConstantInput(ctx, index, what));
  return ReadConstantInts(ctx, index, what, values);
}

StatusOr<int32_t> ToDimension(const KernelContext& ctx, int64_t value, const std::string& what) {
  if (value < 0) return ctx.Error(what + " is negative (" + std::to_string(value) + ")");
  if (value > std::numeric_limits<int32_t>::max()) {
    return ctx.Error(what + " (" + std::to_string(value) + ") does not fit a dimension (at most 2^31-1)");
  }
  return static_cast<int32_t>(value);
}

Status CheckSameQuantization(const KernelContext& ctx, const Tensor& in, const std::string& what_in, const Tensor& out,
                             const std::string& what_out) {
  if (in.quant.IsQuantized() && out.quant.IsQuantized() && !SameQuantization(in.quant, out.quant)) {
    return ctx.Unsupported(what_in + " and " + what_out +
                           " have different quantization parameters; this op only moves bytes and would need "
                           "requantization");
  }
  return Status::Ok();
}

}  // namespace relite::cpu
