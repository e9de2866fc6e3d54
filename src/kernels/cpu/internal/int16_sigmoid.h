// int16 LOGISTIC and TANH as TFLite's builtin kernels run them (zero points
// 0, output scale 2^-15):
//  - input scale exactly 2^-12 (LOGISTIC, TANH) or 2^-13 (TANH): the
//    optimized kernel's gemmlowp fixed point, input Q3.12 (2^-13 is first
//    doubled with saturation), see lstm_fixed_point.h;
//  - any other input scale: the reference kernel's table. The input is
//    rescaled by (int)(scale * 3 * 4096 * 2^s) with a rounding shift s (the
//    largest s <= 31 that keeps the multiplier above 16383.5), so that 2^17
//    stands for 10.7 (LOGISTIC) or 2^16 for 5.3 (TANH, which reads the table
//    at twice the rate: tanh(x) = 2 sigmoid(2x) - 1); the table holds
//    sigmoid(i / 24) in 0.16 and is interpolated on the low 9 (8) bits.
// Header-only: included from quantized/, whose float steps are not contracted.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>

#include "relite/kernel.h"
#include "src/kernels/cpu/internal/lstm_fixed_point.h"

namespace relite::cpu {

// TFLite's sigmoid_table_uint16 (sigmoid(i / 24) in 0.16; not a plain
// rounding of the function, so it is kept as data).
inline constexpr uint16_t kSigmoidTable16[256] = {
    32768, 33451, 34133, 34813, 35493, 36169, 36843, 37513, 38180, 38841, 39498, 40149, 40794, 41432, 42064, 42688,
    43304, 43912, 44511, 45102, 45683, 46255, 46817, 47369, 47911, 48443, 48964, 49475, 49975, 50464, 50942, 51409,
    51865, 52311, 52745, 53169, 53581, 53983, 54374, 54755, 55125, 55485, 55834, 56174, 56503, 56823, 57133, 57433,
    57724, 58007, 58280, 58544, 58800, 59048, 59288, 59519, 59743, 59959, 60168, 60370, 60565, 60753, 60935, 61110,
    61279, 61441, 61599, 61750, 61896, 62036, 62172, 62302, 62428, 62549, 62666, 62778, 62886, 62990, 63090, 63186,
    63279, 63368, 63454, 63536, 63615, 63691, 63765, 63835, 63903, 63968, 64030, 64090, 64148, 64204, 64257, 64308,
    64357, 64405, 64450, 64494, 64536, 64576, 64614, 64652, 64687, 64721, 64754, 64786, 64816, 64845, 64873, 64900,
    64926, 64950, 64974, 64997, 65019, 65039, 65060, 65079, 65097, 65115, 65132, 65149, 65164, 65179, 65194, 65208,
    65221, 65234, 65246, 65258, 65269, 65280, 65291, 65301, 65310, 65319, 65328, 65337, 65345, 65352, 65360, 65367,
    65374, 65381, 65387, 65393, 65399, 65404, 65410, 65415, 65420, 65425, 65429, 65433, 65438, 65442, 65445, 65449,
    65453, 65456, 65459, 65462, 65465, 65468, 65471, 65474, 65476, 65479, 65481, 65483, 65485, 65488, 65489, 65491,
    65493, 65495, 65497, 65498, 65500, 65501, 65503, 65504, 65505, 65507, 65508, 65509, 65510, 65511, 65512, 65513,
    65514, 65515, 65516, 65517, 65517, 65518, 65519, 65520, 65520, 65521, 65522, 65522, 65523, 65523, 65524, 65524,
    65525, 65525, 65526, 65526, 65526, 65527, 65527, 65528, 65528, 65528, 65529, 65529, 65529, 65529, 65530, 65530,
    65530, 65530, 65531, 65531, 65531, 65531, 65531, 65532, 65532, 65532, 65532, 65532, 65532, 65533, 65533, 65533,
    65533, 65533, 65533, 65533, 65533, 65534, 65534, 65534, 65534, 65534, 65534, 65534, 65534, 65534, 65534, 65535};

// TFLite's CheckedLog2: whether log2(x) is within 1e-3 of an integer (float
// math), and that integer.
inline bool CheckedLog2(float x, int* log2_rounded) {
  const float l = std::log(x) * (1.0f / std::log(2.0f));
  const float r = std::round(l);
  *log2_rounded = static_cast<int>(r);
  return std::abs(l - r) < 1e-3f;
}

class Int16SigmoidKernel final : public Kernel {
 public:
  explicit Int16SigmoidKernel(bool tanh) : tanh_(tanh) {}

  Status Prepare(KernelContext& ctx) override {
    if (ctx.num_inputs() != 1 || !ctx.has_input(0)) {
      return ctx.Error("expects 1 input, got " + std::to_string(ctx.num_inputs()));
    }
    if (ctx.num_outputs() != 1) return ctx.Error("expects 1 output, got " + std::to_string(ctx.num_outputs()));
    const Tensor& in = ctx.input(0);
    const Tensor& out = ctx.output(0);
    if (in.type != DataType::kInt16 || out.type != DataType::kInt16) {
      return ctx.Error("int16 kernel needs int16 input and output, got " + DataTypeName(in.type) + " and " +
                       DataTypeName(out.type));
    }
    for (const Tensor* t : {&in, &out}) {
      const char* what = t == &in ? "input" : "output";
      if (t->quant.scale.size() != 1 || t->quant.zero_point.size() > 1) {
        return ctx.Unsupported(std::string(what) + " must be quantized per tensor");
      }
      if (!(t->quant.scale[0] > 0.0f) || !std::isfinite(t->quant.scale[0])) {
        return ctx.Error(std::string(what) + " scale must be positive and finite");
      }
      if (!t->quant.zero_point.empty() && t->quant.zero_point[0] != 0) {
        return ctx.Unsupported(std::string(what) + ": int16 needs zero point 0, has " +
                               std::to_string(t->quant.zero_point[0]));
      }
    }
    const float in_scale = in.quant.scale[0], out_scale = out.quant.scale[0];
    int out_log2 = 0;
    if (!CheckedLog2(out_scale, &out_log2) || out_log2 != -15 || (!tanh_ && out_scale != 1.0f / 32768.0f)) {
      return ctx.Unsupported("int16 output scale must be 2^-15, got " + std::to_string(out_scale));
    }
    int in_log2 = 0;
    const bool pot = CheckedLog2(in_scale, &in_log2);
    const int pot_shift = 12 + in_log2;
    if (pot && (pot_shift == 0 || (tanh_ && pot_shift == 1))) {
      fixed_point_ = true;
      double_input_ = pot_shift == 1;
    } else {
      fixed_point_ = false;
      double m = static_cast<double>(in_scale) * 4096.0 * 3.0;
      shift_ = 0;
      while (m <= 32767.0 / 2.0 && shift_ <= 30) {
        ++shift_;
        m *= 2.0;
      }
      // TFLite truncates to int32; scales this large saturate every input anyway.
      multiplier_ = static_cast<int64_t>(std::min(m, 2147483647.0));
    }
    return ctx.ResizeOutput(0, in.shape);
  }

  Status Eval(KernelContext& ctx) override {
    const int16_t* x = ctx.input(0).data_as<int16_t>();
    int16_t* y = ctx.output(0).data_as<int16_t>();
    const int64_t n = ctx.input(0).num_elements();
    ctx.ParallelFor(n, int64_t{1} << 14, [&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i) y[i] = Apply(x[i]);
    });
    return Status::Ok();
  }

 private:
  int16_t Apply(int16_t v) const {
    if (fixed_point_) {
      if (!tanh_) return lstm_fp::Logistic<3>(v);
      return lstm_fp::Tanh<3>(double_input_ ? lstm_fp::MulByPow2(v, 1) : v);
    }
    const int64_t round = shift_ > 0 ? int64_t{1} << (shift_ - 1) : 0;
    const int64_t scaled = (v * multiplier_ + round) >> shift_;
    const uint64_t a = static_cast<uint64_t>(scaled < 0 ? -scaled : scaled);
    if (!tanh_) {
      const uint64_t hi = a >> 9;
      uint32_t r;
      if (hi >= 255) {
        r = 0x7FFFu << 10;
      } else {
        const uint32_t ua = kSigmoidTable16[hi], ub = kSigmoidTable16[hi + 1];
        r = (ua << 9) + static_cast<uint32_t>(a & 0x1FF) * (ub - ua);
      }
      r = scaled >= 0 ? r + (1u << 9) : (1u << 25) - r + (1u << 9) - 1;
      return static_cast<int16_t>(r >> 10);
    }
    const uint64_t hi = a >> 8;
    int32_t r;
    if (hi >= 255) {
      r = 0xFFFF << 8;
    } else {
      const uint32_t ua = kSigmoidTable16[hi], ub = kSigmoidTable16[hi + 1];
      r = static_cast<int32_t>((ua << 8) + static_cast<uint32_t>(a & 0xFF) * (ub - ua));
    }
    r = scaled >= 0 ? r - (1 << 23) + (1 << 7) : -r + (1 << 23) + (1 << 7) - 1;
    return static_cast<int16_t>(r >> 8);
  }

  bool tanh_;
  bool fixed_point_ = false;
  bool double_input_ = false;
  int shift_ = 0;
  int64_t multiplier_ = 0;
};

}  // namespace relite::cpu
