// Quantized SQUARED_DIFFERENCE, int8, as TFLite's builtin kernel computes it:
// each operand v = MBQM((q - zp) * 2^7, Q31(s / (2 * max(s_a, s_b)))), then
//   out = clamp(MBQM((va - vb)^2, Q31((2 max s)^2 / (2^14 * s_out))) + zp_out)
// with broadcasting. The 256 rescaled values of each operand are tabulated
// in Prepare.
#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>

#include "src/kernels/cpu/internal/broadcast.h"
#include "src/kernels/cpu/internal/elementwise.h"
#include "src/kernels/cpu/internal/quantized_elementwise.h"
#include "src/kernels/cpu/kernels.h"

namespace relite::cpu {
namespace {

class QuantizedSquaredDifferenceKernel final : public Kernel {
 public:
  Status Prepare(KernelContext& ctx) override {
    RELITE_RETURN_IF_ERROR(CheckBinaryOperands(ctx));
    if (ctx.input(0).type != DataType::kInt8) {
      return ctx.Unsupported("quantized " + DataTypeName(ctx.input(0).type) + " input is not supported (int8)");
    }
    TensorQuant a, b, out;
    RELITE_RETURN_IF_ERROR(ReadTensorQuant(ctx, ctx.input(0), "input 0", &a));
    RELITE_RETURN_IF_ERROR(ReadTensorQuant(ctx, ctx.input(1), "input 1", &b));
    RELITE_RETURN_IF_ERROR(ReadTensorQuant(ctx, ctx.output(0), "output", &out));
    constexpr int kLeftShift = 7;
    const double twice_max = 2.0 * static_cast<double>(std::max(a.scale, b.scale));
    const QuantizedMultiplier ma = QuantizeMultiplier(static_cast<double>(a.scale) / twice_max);
    const QuantizedMultiplier mb = QuantizeMultiplier(static_cast<double>(b.scale) / twice_max);
    out_m_ = QuantizeMultiplier(twice_max * twice_max /
                                (static_cast<double>(1 << (2 * kLeftShift)) * static_cast<double>(out.scale)));
    out_zp_ = out.zero_point;
    for (int32_t q = -128; q <= 127; ++q) {
      table_a_[static_cast<uint8_t>(q)] = MultiplyByQuantizedMultiplier((q - a.zero_point) * (1 << kLeftShift), ma);
      table_b_[static_cast<uint8_t>(q)] = MultiplyByQuantizedMultiplier((q - b.zero_point) * (1 << kLeftShift), mb);
    }
    return PrepareBroadcast(ctx, &plan_, 1);
  }

  Status Eval(KernelContext& ctx) override {
    const uint8_t* a = ctx.input(0).data_as<uint8_t>();
    const uint8_t* b = ctx.input(1).data_as<uint8_t>();
    int8_t* out = ctx.output(0).data_as<int8_t>();
    const int32_t* ta = table_a_;
    const int32_t* tb = table_b_;
    const QuantizedMultiplier m = out_m_;
    const int32_t zo = out_zp_;
    RunBroadcastBinary(ctx, plan_, a, b, out, [=](uint8_t x, uint8_t y) {
      const int32_t d = ta[x] - tb[y];  // |d| < 2^15: the square fits
      const int64_t v = int64_t{MultiplyByQuantizedMultiplier(d * d, m)} + zo;
      return static_cast<int8_t>(std::clamp<int64_t>(v, -128, 127));
    });
    return Status::Ok();
  }

 private:
  int32_t table_a_[256] = {};
  int32_t table_b_[256] = {};
  QuantizedMultiplier out_m_;
  int32_t out_zp_ = 0;
  BroadcastPlan plan_;
};

}  // namespace

StatusOr<std::unique_ptr<Kernel>> CreateQuantizedSquaredDifference(const Node&) {
  return std::unique_ptr<Kernel>(std::make_unique<QuantizedSquaredDifferenceKernel>());
}

}  // namespace relite::cpu
