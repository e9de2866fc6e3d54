// The kernel shared by MAXIMUM and MINIMUM: elementwise max/min with
// broadcasting on float32 and on raw integers. For int8/uint8/int16 the
// comparison of raw values is exact only when both inputs and the output
// share one quantization, so other combinations are unsupported.
#pragma once

#include <cstdint>
#include <type_traits>

#include "relite/kernel.h"
#include "src/kernels/cpu/internal/broadcast.h"

namespace relite::cpu {

// NaN in either input gives NaN (as TensorFlow's maximum/minimum do).
struct MaximumOp {
  template <typename T>
  T operator()(T a, T b) const {
    if constexpr (std::is_floating_point_v<T>) {
      return (a > b || a != a) ? a : b;
    } else {
      return a > b ? a : b;
    }
  }
};

struct MinimumOp {
  template <typename T>
  T operator()(T a, T b) const {
    if constexpr (std::is_floating_point_v<T>) {
      return (a < b || a != a) ? a : b;
    } else {
      return a < b ? a : b;
    }
  }
};

inline bool SameQuantization(const Quantization& x, const Quantization& y) {
  return x.scale == y.scale && x.zero_point == y.zero_point &&
         (!x.IsPerChannel() || x.quantized_dimension == y.quantized_dimension);
}

template <typename Op>
class MaximumMinimumKernel final : public Kernel {
 public:
  Status Prepare(KernelContext& ctx) override {
    RELITE_RETURN_IF_ERROR(CheckBinaryOperands(ctx));
    type_ = ctx.input(0).type;
    if (IsQuantizedStorageType(type_)) {
      const Quantization& q = ctx.input(0).quant;
      if (!SameQuantization(q, ctx.input(1).quant) || !SameQuantization(q, ctx.output(0).quant) ||
          q.IsPerChannel()) {
        return ctx.Unsupported(DataTypeName(type_) + " inputs and output with different quantization");
      }
    } else {
      RELITE_RETURN_IF_ERROR(CheckComputedType(ctx, type_, {DataType::kFloat32, DataType::kInt32, DataType::kInt64}));
    }
    return PrepareBroadcast(ctx, &plan_, DataTypeSize(type_));
  }

  Status Eval(KernelContext& ctx) override {
    switch (type_) {
      case DataType::kFloat32: RunBinaryOp<float>(ctx, plan_, Op{}); break;
      case DataType::kInt32: RunBinaryOp<int32_t>(ctx, plan_, Op{}); break;
      case DataType::kInt64: RunBinaryOp<int64_t>(ctx, plan_, Op{}); break;
      case DataType::kInt16: RunBinaryOp<int16_t>(ctx, plan_, Op{}); break;
      case DataType::kInt8: RunBinaryOp<int8_t>(ctx, plan_, Op{}); break;
      case DataType::kUInt8: RunBinaryOp<uint8_t>(ctx, plan_, Op{}); break;
      default: return ctx.Error("unexpected type " + DataTypeName(type_));
    }
    return Status::Ok();
  }

 private:
  DataType type_ = DataType::kFloat32;
  BroadcastPlan plan_;
};

}  // namespace relite::cpu
