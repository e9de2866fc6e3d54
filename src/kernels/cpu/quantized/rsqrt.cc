// Quantized RSQRT, int8, as TFLite's builtin kernel computes it: for
// v = q - zp_in > 0, TFLite's fixed-point 1/sqrt(v) (Newton-Raphson,
// internal/fixed_point_inv_sqrt.h) as a multiplier m, then
//   d = MBQM(1, m, shift + 20), out = clamp(MBQM(d, M, S - 20) + zp_out)
// with (M, S) = QuantizeMultiplier(1 / double(sqrtf(s_in) * s_out)); v = 0
// gives 127. A value below the input zero point (a negative real) fails the
// Eval, as in TFLite. The 256 results are tabulated in Prepare.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <string>

#include "src/kernels/cpu/internal/elementwise.h"
#include "src/kernels/cpu/internal/fixed_point_inv_sqrt.h"
#include "src/kernels/cpu/internal/quantized_elementwise.h"
#include "src/kernels/cpu/kernels.h"

namespace relite::cpu {
namespace {

class QuantizedRsqrtKernel final : public Kernel {
 public:
  Status Prepare(KernelContext& ctx) override {
    RELITE_RETURN_IF_ERROR(CheckArity(ctx, 1, 1));
    const Tensor& input = ctx.input(0);
    if (input.type != DataType::kInt8) {
      return ctx.Unsupported("quantized " + DataTypeName(input.type) + " input is not supported (int8)");
    }
    RELITE_RETURN_IF_ERROR(CheckOutputType(ctx, 0, DataType::kInt8));
    TensorQuant in_q, out_q;
    RELITE_RETURN_IF_ERROR(ReadTensorQuant(ctx, input, "input", &in_q));
    RELITE_RETURN_IF_ERROR(ReadTensorQuant(ctx, ctx.output(0), "output", &out_q));
    in_zp_ = in_q.zero_point;
    const QuantizedMultiplier out_m =
        QuantizeMultiplier(1.0 / static_cast<double>(std::sqrt(in_q.scale) * out_q.scale));
    constexpr int kShift = 20;  // keeps the intermediate an integer
    if (out_m.shift - kShift < -31) {
      return ctx.Unsupported("input/output scales give a rescaling shift beyond 31 bits");
    }
    for (int32_t q = -128; q <= 127; ++q) {
      const int32_t v = q - in_zp_;
      int32_t r = 127;
      if (v > 0) {
        const QuantizedMultiplier inv = InvSqrtQuantizedMultiplierExp(v, -1);
        const int32_t d = MultiplyByQuantizedMultiplier(1, {inv.multiplier, inv.shift + kShift});
        const int64_t o = int64_t{MultiplyByQuantizedMultiplier(d, {out_m.multiplier, out_m.shift - kShift})} +
                          out_q.zero_point;
        r = static_cast<int32_t>(std::clamp<int64_t>(o, -128, 127));
      }
      table_[static_cast<uint8_t>(q)] = static_cast<int8_t>(r);
    }
    return ctx.ResizeOutput(0, input.shape);
  }

  Status Eval(KernelContext& ctx) override {
    const Tensor& input = ctx.input(0);
    const int8_t* in = input.data_as<int8_t>();
    int8_t* out = ctx.output(0).data_as<int8_t>();
    const int64_t n = input.num_elements();
    for (int64_t i = 0; i < n; ++i) {
      if (in[i] < in_zp_) {
        return ctx.Error("RSQRT of a negative value (input '" + input.name + "' holds " + std::to_string(in[i]) +
                         " below its zero point " + std::to_string(in_zp_) + ")");
      }
    }
    for (int64_t i = 0; i < n; ++i) out[i] = table_[static_cast<uint8_t>(in[i])];
    return Status::Ok();
  }

 private:
  int32_t in_zp_ = 0;
  int8_t table_[256] = {};
};

}  // namespace

StatusOr<std::unique_ptr<Kernel>> CreateQuantizedRsqrt(const Node&) {
  return std::unique_ptr<Kernel>(std::make_unique<QuantizedRsqrtKernel>());
}

}  // namespace relite::cpu
