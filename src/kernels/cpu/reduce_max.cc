// REDUCE_MAX over the axes given by a constant axis tensor. A value wins
// only when it compares greater, so NaNs are skipped (as in TFLite), and an
// empty reduction yields the type's lowest value.
#include <memory>
#include <string>

#include "src/kernels/cpu/internal/reduction.h"
#include "src/kernels/cpu/kernels.h"

namespace relite::cpu {
namespace {

using reduce_internal::MaxReducer;
using reduce_internal::RunReduction;

class ReduceMaxKernel final : public ReduceKernelBase {
 public:
  explicit ReduceMaxKernel(const Node& node) : ReduceKernelBase(node, "REDUCE_MAX") {}

  Status Eval(KernelContext& ctx) override {
    switch (ctx.input(0).type) {
      case DataType::kFloat32: return EvalTyped<float>(ctx);
      case DataType::kInt32: return EvalTyped<int32_t>(ctx);
      case DataType::kInt64: return EvalTyped<int64_t>(ctx);
      default: return ctx.Error("unexpected input type " + DataTypeName(ctx.input(0).type));
    }
  }

 protected:
  Status CheckType(KernelContext& ctx, DataType type) const override {
    if (type == DataType::kFloat32 || type == DataType::kInt32 || type == DataType::kInt64) return Status::Ok();
    if (type == DataType::kUInt8 || type == DataType::kInt8 || type == DataType::kInt16) {
      return ctx.Unsupported("quantized " + DataTypeName(type) + " input is not supported yet");
    }
    return ctx.Error("input type " + DataTypeName(type) + " is not supported (float32, int32, int64)");
  }

 private:
  template <typename T>
  Status EvalTyped(KernelContext& ctx) {
    RunReduction<MaxReducer<T>>(ctx, plan(), ctx.input(0).data_as<T>(), ctx.output(0).data_as<T>(), ctx.scratch());
    return Status::Ok();
  }
};

}  // namespace

StatusOr<std::unique_ptr<Kernel>> CreateReduceMax(const Node& node) {
  return std::unique_ptr<Kernel>(std::make_unique<ReduceMaxKernel>(node));
}

}  // namespace relite::cpu
