// REDUCE_ANY / REDUCE_ALL: bool data, bool output, constant axis tensor.
#pragma once

#include <memory>

#include "src/kernels/cpu/internal/reduction.h"

namespace relite::cpu {

template <bool kAll>
class BoolReduceKernel final : public ReduceKernelBase {
 public:
  explicit BoolReduceKernel(const Node& node) : ReduceKernelBase(node, kAll ? "REDUCE_ALL" : "REDUCE_ANY") {}

  Status Eval(KernelContext& ctx) override {
    reduce_internal::RunReduction<reduce_internal::BoolReducer<kAll>>(
        ctx, plan(), ctx.input(0).data_as<uint8_t>(), ctx.output(0).data_as<uint8_t>(), ctx.scratch());
    return Status::Ok();
  }

 protected:
  Status CheckType(KernelContext& ctx, DataType type) const override {
    if (type == DataType::kBool) return Status::Ok();
    return ctx.Error("input type " + DataTypeName(type) + " is not supported (bool only)");
  }
};

}  // namespace relite::cpu
