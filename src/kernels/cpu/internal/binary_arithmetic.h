// The kernel shared by ADD, SUB and MUL: the same checks, dtypes
// (float32, int32, int64; integers wrap on overflow), broadcasting and fused
// clamp; only the element operation differs.
#pragma once

#include <memory>

#include "src/core/ops/params.h"
#include "src/kernels/cpu/internal/broadcast.h"
#include "src/kernels/cpu/internal/elementwise.h"

namespace relite::cpu {

template <typename Op>
class BinaryArithmeticKernel final : public Kernel {
 public:
  explicit BinaryArithmeticKernel(Activation activation) : activation_(activation) {}

  Status Prepare(KernelContext& ctx) override {
    RELITE_RETURN_IF_ERROR(CheckBinaryOperands(ctx));
    type_ = ctx.input(0).type;
    RELITE_RETURN_IF_ERROR(CheckComputedType(ctx, type_, {DataType::kFloat32, DataType::kInt32, DataType::kInt64}));
    return PrepareBroadcast(ctx, &plan_, DataTypeSize(type_));
  }

  Status Eval(KernelContext& ctx) override {
    switch (type_) {
      case DataType::kFloat32: RunBinaryOp<float>(ctx, plan_, Op{}, activation_); break;
      case DataType::kInt32: RunBinaryOp<int32_t>(ctx, plan_, Op{}, activation_); break;
      case DataType::kInt64: RunBinaryOp<int64_t>(ctx, plan_, Op{}, activation_); break;
      default: return ctx.Error("unexpected type " + DataTypeName(type_));
    }
    return Status::Ok();
  }

  bool FuseClamp(float min, float max) override { return FuseClampInto(&activation_, min, max); }

 private:
  Activation activation_;
  DataType type_ = DataType::kFloat32;
  BroadcastPlan plan_;
};

template <typename Op>
StatusOr<std::unique_ptr<Kernel>> CreateBinaryArithmetic(const Node& node) {
  RELITE_ASSIGN_OR_RETURN(const Activation activation, ParseFusedActivation(node));
  RELITE_RETURN_IF_ERROR(CheckClampActivation(node, activation));
  return std::unique_ptr<Kernel>(std::make_unique<BinaryArithmeticKernel<Op>>(activation));
}

}  // namespace relite::cpu
