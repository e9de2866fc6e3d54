#include "src/kernels/cpu/internal/elementwise.h"

#include <string>

namespace relite::cpu {

Status CheckArity(KernelContext& ctx, int inputs, int outputs) {
  if (ctx.num_inputs() != inputs) {
    return ctx.Error("expected " + std::to_string(inputs) + " input(s), got " + std::to_string(ctx.num_inputs()));
  }
  if (ctx.num_outputs() != outputs) {
    return ctx.Error("expected " + std::to_string(outputs) + " output(s), got " + std::to_string(ctx.num_outputs()));
  }
  for (int i = 0; i < inputs; ++i) {
    if (!ctx.has_input(i)) return ctx.Error("input " + std::to_string(i) + " is missing");
  }
  return Status::Ok();
}

Status CheckType(KernelContext& ctx, const Tensor& tensor, const char* what, DataType expected) {
  if (tensor.type == expected) return Status::Ok();
  return ctx.Error(std::string(what) + " '" + tensor.name + "' has type " + DataTypeName(tensor.type) + ", expected " +
                   DataTypeName(expected));
}

Status CheckComputedType(KernelContext& ctx, DataType type, std::initializer_list<DataType> computed,
                         const char* what) {
  for (DataType t : computed) {
    if (t == type) return Status::Ok();
  }
  if (IsQuantizedStorageType(type)) {
    return ctx.Unsupported(std::string(what) + " type " + DataTypeName(type) + " (quantized) is not supported yet");
  }
  std::string expected;
  for (DataType t : computed) expected += (expected.empty() ? "" : ", ") + DataTypeName(t);
  return ctx.Error(std::string(what) + " type " + DataTypeName(type) + " is not valid for this op (expected " +
                   expected + ")");
}

Status CheckOutputType(KernelContext& ctx, int index, DataType expected) {
  return CheckType(ctx, ctx.output(index), "output", expected);
}

Status PrepareFloatUnary(KernelContext& ctx) {
  RELITE_RETURN_IF_ERROR(CheckArity(ctx, 1, 1));
  const Tensor& input = ctx.input(0);
  if (IsQuantizedStorageType(input.type)) {
    return ctx.Unsupported("quantized " + DataTypeName(input.type) + " input is not supported yet");
  }
  RELITE_RETURN_IF_ERROR(CheckType(ctx, input, "input", DataType::kFloat32));
  RELITE_RETURN_IF_ERROR(CheckOutputType(ctx, 0, DataType::kFloat32));
  return ctx.ResizeOutput(0, input.shape);
}

}  // namespace relite::cpu
