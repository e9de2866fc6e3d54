#include "src/kernels/cpu/internal/resize.h"

#include <string>

namespace relite::cpu {

Status PrepareResize(KernelContext& ctx, int32_t* out_h, int32_t* out_w, int fused_inputs) {
  if (ctx.num_inputs() != 2 + fused_inputs || !ctx.has_input(0) || !ctx.has_input(1)) {
    return ctx.Error("expects 2 inputs (input, size), got " + std::to_string(ctx.num_inputs() - fused_inputs));
  }
  for (int i = 2; i < 2 + fused_inputs; ++i) {
    if (!ctx.has_input(i)) return InternalError(ctx.node().Describe() + ": fused ADD operand is missing");
  }
  if (ctx.num_outputs() != 1) return ctx.Error("expects 1 output, got " + std::to_string(ctx.num_outputs()));
  const Tensor& input = ctx.input(0);
  const Tensor& size = ctx.input(1);
  const Tensor& output = ctx.output(0);
  if (output.type != input.type) {
    return ctx.Error("output type " + DataTypeName(output.type) + " differs from input type " +
                     DataTypeName(input.type));
  }
  if (input.rank() != 4) return ctx.Error("input must be 4-D NHWC, got shape " + ShapeToString(input.shape));
  if (size.type != DataType::kInt32) return ctx.Error("size must be int32, got " + DataTypeName(size.type));
  if (size.rank() != 1 || size.dim(0) != 2) {
    return ctx.Error("size must have shape [2], got " + ShapeToString(size.shape));
  }
  if (!size.is_constant()) return ctx.Unsupported("size must be a constant tensor");
  if (size.data == nullptr) return ctx.Error("size tensor has no data");
  *out_h = size.data_as<int32_t>()[0];
  *out_w = size.data_as<int32_t>()[1];
  if (*out_h <= 0 || *out_w <= 0) {
    return ctx.Error("output size must be positive, got " + std::to_string(*out_h) + "x" + std::to_string(*out_w));
  }
  if ((input.dim(1) <= 0 || input.dim(2) <= 0) && input.dim(0) > 0 && input.dim(3) > 0) {
    return ctx.Error("cannot resize an empty image of shape " + ShapeToString(input.shape));
  }
  return ctx.ResizeOutput(0, {input.dim(0), *out_h, *out_w, input.dim(3)});
}

}  // namespace relite::cpu
