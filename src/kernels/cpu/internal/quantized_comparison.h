// The 8-bit comparisons (EQUAL, NOT_EQUAL, GREATER, GREATER_EQUAL, LESS,
// LESS_EQUAL on uint8/int8) as TFLite's builtin kernel computes them: each
// operand is brought to a common fixed-point scale before comparing,
//   v = MBQM((q - zp) * 2^8, QuantizeMultiplier(scale)),
// the Q31 multiplier of the operand's own scale (not a ratio), rounded as
// MultiplyByQuantizedMultiplier does. Two values that dequantize to nearly
// the same real number can therefore compare equal. int16 inputs are plain
// integers in TFLite and go to the type-generic kernel.
//
// An 8-bit operand has 256 values: both rescalings are tabulated in Prepare.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "relite/kernel.h"
#include "src/kernels/cpu/internal/broadcast.h"
#include "src/kernels/cpu/internal/elementwise.h"
#include "src/kernels/cpu/internal/quantization.h"
#include "src/kernels/cpu/internal/quantized_elementwise.h"

namespace relite::cpu {

template <typename Compare>
class QuantizedComparisonKernel final : public Kernel {
 public:
  Status Prepare(KernelContext& ctx) override {
    RELITE_RETURN_IF_ERROR(CheckBinaryInputs(ctx));
    type_ = ctx.input(0).type;
    if (type_ != DataType::kUInt8 && type_ != DataType::kInt8) {
      return ctx.Unsupported("quantized comparison of " + DataTypeName(type_) + " is not supported (uint8, int8)");
    }
    RELITE_RETURN_IF_ERROR(CheckOutputType(ctx, 0, DataType::kBool));
    RELITE_RETURN_IF_ERROR(FillTable(ctx, ctx.input(0), "input 0", table_a_));
    RELITE_RETURN_IF_ERROR(FillTable(ctx, ctx.input(1), "input 1", table_b_));
    return PrepareBroadcast(ctx, &plan_, 1);
  }

  Status Eval(KernelContext& ctx) override {
    const uint8_t* a = ctx.input(0).data_as<uint8_t>();
    const uint8_t* b = ctx.input(1).data_as<uint8_t>();
    uint8_t* out = ctx.output(0).data_as<uint8_t>();
    const int32_t* ta = table_a_;
    const int32_t* tb = table_b_;
    RunBroadcastBinary(ctx, plan_, a, b, out,
                       [ta, tb](uint8_t x, uint8_t y) { return static_cast<uint8_t>(Compare{}(ta[x], tb[y])); });
    return Status::Ok();
  }

 private:
  // table[raw byte] = the rescaled value of that quantized value.
  Status FillTable(KernelContext& ctx, const Tensor& t, const std::string& what, int32_t* table) const {
    TensorQuant q;
    RELITE_RETURN_IF_ERROR(ReadTensorQuant(ctx, t, what, &q));
    // TFLite quantizes the scale itself with a right shift only: a scale of
    // 1 or more has a left shift, which its rounding division cannot take.
    if (!(q.scale < 1.0f)) {
      return ctx.Unsupported(what + " scale " + std::to_string(q.scale) + " is not below 1");
    }
    const QuantizedMultiplier m = QuantizeMultiplier(static_cast<double>(q.scale));
    for (int32_t v = q.qmin; v <= q.qmax; ++v) {
      table[static_cast<uint8_t>(v)] = MultiplyByQuantizedMultiplier((v - q.zero_point) * 256, m);
    }
    return Status::Ok();
  }

  DataType type_ = DataType::kUInt8;
  int32_t table_a_[256] = {};
  int32_t table_b_[256] = {};
  BroadcastPlan plan_;
};

// The factory of a comparison: int8/uint8 here, int16 (plain integers in
// TFLite) to the type-generic float factory.
template <typename Compare>
StatusOr<std::unique_ptr<Kernel>> CreateQuantizedComparison(const Node& node,
                                                            StatusOr<std::unique_ptr<Kernel>> (*plain)(const Node&)) {
  if (node.input_type(0) == DataType::kInt16) return plain(node);
  return std::unique_ptr<Kernel>(std::make_unique<QuantizedComparisonKernel<Compare>>());
}

}  // namespace relite::cpu
