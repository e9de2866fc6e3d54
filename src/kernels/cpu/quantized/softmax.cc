// Quantized SOFTMAX over the last axis: uint8 or int8 input with output of
// the same type (scale 1/256, zero point 0 / -128) or int16 (scale 1/32768,
// zero point 0); int16 input with int16 output. XNNPACK does not take it; this is TFLite's optimized builtin
// kernel, which works in float through a table built once:
//   table[255 - d] = expf(float(-in_scale * beta) * d),  d = 0..255
//   per row: m = max(q); sum = sequential float sum of table[255 - m + q]
//   inv = 1 / (sum * out_scale)
//   p = table[255 - m + q] * inv
//   uint8 out: int(p + 0.5f); int8 / int16 out: round_half_away(p) + out_zp; clamped.
// The row sum is kept sequential (no reassociation) because the rounding
// of each addition is part of the result.
//
// int16 input (zero point 0) to int16 output (scale 1/32768, zero point 0)
// is TFLite's reference int16 kernel, fixed point with two interpolated
// 513-entry tables (FillInt16Lut, built in double):
//   exp table over [-10, 0], 1/(1+x) table over [0, 1]
//   d = MultiplyByQuantizedMultiplier(q - max, M(in_scale * beta / (10 / 65535)))
//   e = lookup_exp(clamp16(d + 32767)),  s = sum(e)  (int32)
//   h = clz(s); r = lookup_recip(clamp16((((s << (h - 1)) + 2^13) >> 14) - 3 * 2^15))
//   out = clamp((e * r + 2^(30 - h)) >> (31 - h), 0, 32767)
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <memory>
#include <string>
#include <limits>
#include <type_traits>

#include "src/core/ops/options.h"
#include "src/kernels/cpu/internal/quantized_lut.h"
#include "src/kernels/cpu/kernels.h"

namespace relite::cpu {
namespace {

template <typename In, typename Out>
void SoftmaxRows(const float* table, const In* x, Out* y, int64_t rows, int64_t depth, float out_scale,
                 int32_t out_zp) {
  constexpr int32_t kMin = std::numeric_limits<Out>::min(), kMax = std::numeric_limits<Out>::max();
  for (int64_t r = 0; r < rows; ++r) {
    const In* xr = x + r * depth;
    Out* yr = y + r * depth;
    int32_t m = std::numeric_limits<In>::min();
    for (int64_t j = 0; j < depth; ++j) m = std::max<int32_t>(m, xr[j]);
    const float* t = table + (255 - m);  // t[q] = exp(in_scale * beta * (q - m)), q <= m
    float sum = 0.f;
    for (int64_t j = 0; j < depth; ++j) sum += t[xr[j]];
    const float inv = 1.0f / (sum * out_scale);
    for (int64_t j = 0; j < depth; ++j) {
      const float p = t[xr[j]] * inv;
      int32_t q;
      if constexpr (std::is_same_v<Out, uint8_t>) {
        q = static_cast<int32_t>(p + 0.5f);
      } else {
        q = static_cast<int32_t>(std::round(p)) + out_zp;
      }
      yr[j] = static_cast<Out>(std::clamp(q, kMin, kMax));
    }
  }
}

void SoftmaxRowsInt16(const Int16Lut& exp_lut, const Int16Lut& recip_lut, QuantizedMultiplier mult,
                      const int16_t* x, int16_t* y, int64_t rows, int64_t depth) {
  for (int64_t r = 0; r < rows; ++r) {
    const int16_t* xr = x + r * depth;
    int16_t* yr = y + r * depth;
    int16_t m = std::numeric_limits<int16_t>::min();
    for (int64_t j = 0; j < depth; ++j) m = std::max(m, xr[j]);
    int32_t sum = 0;
    for (int64_t j = 0; j < depth; ++j) {
      const int64_t scaled = int64_t{MultiplyByQuantizedMultiplier(static_cast<int32_t>(xr[j]) - m, mult)} + 32767;
      const auto e = LookupInt16Lut(exp_lut, static_cast<int16_t>(std::clamp<int64_t>(scaled, -32768, 32767)));
      yr[j] = e;  // the exponentials wait in the output row
      sum += e;
    }
    const int headroom_plus_one = std::countl_zero(static_cast<uint32_t>(sum));
    const auto shifted = static_cast<int32_t>(((static_cast<int64_t>(sum) << (headroom_plus_one - 1)) + (1 << 13)) >> 14);
    const int32_t sym = shifted - ((1 << 15) + (1 << 16));
    const int32_t recip = LookupInt16Lut(recip_lut, static_cast<int16_t>(std::clamp(sym, -32768, 32767)));
    const int right_shift = 31 - headroom_plus_one;
    const int64_t round = int64_t{1} << (right_shift - 1);
    for (int64_t j = 0; j < depth; ++j) {
      const auto v = static_cast<int32_t>((static_cast<int64_t>(yr[j]) * recip + round) >> right_shift);
      yr[j] = static_cast<int16_t>(std::clamp(v, 0, 32767));
    }
  }
}

class QuantizedSoftmaxKernel final : public Kernel {
 public:
  explicit QuantizedSoftmaxKernel(float beta) : beta_(beta) {}

  Status Prepare(KernelContext& ctx) override {
    if (ctx.num_inputs() != 1 || !ctx.has_input(0)) {
      return ctx.Error("expects 1 input, got " + std::to_string(ctx.num_inputs()));
    }
    if (ctx.num_outputs() != 1) return ctx.Error("expects 1 output, got " + std::to_string(ctx.num_outputs()));
    const Tensor& input = ctx.input(0);
    const Tensor& output = ctx.output(0);
    if (input.type != DataType::kUInt8 && input.type != DataType::kInt8 && input.type != DataType::kInt16) {
      return ctx.Error("unexpected input type " + DataTypeName(input.type));
    }
    if (output.type != input.type && output.type != DataType::kInt16) {
      return ctx.Error("output must be " + DataTypeName(input.type) + " or int16, got " + DataTypeName(output.type));
    }
    if (input.rank() < 1) return ctx.Error("input must have rank >= 1, got a scalar");
    ScaleZeroPoint in_q, out_q;
    RELITE_RETURN_IF_ERROR(GetPerTensorQuant(ctx, input, "input", &in_q));
    RELITE_RETURN_IF_ERROR(GetPerTensorQuant(ctx, output, "output", &out_q));
    // TFLite's fixed output quantization.
    const bool wide = output.type == DataType::kInt16;
    const int32_t want_zp = output.type == DataType::kInt8 ? -128 : 0;
    const float want_scale = wide ? 1.0f / 32768 : 1.0f / 256;
    if (out_q.zero_point != want_zp || std::fabs(out_q.scale - want_scale) > 0.001f * want_scale) {
      return ctx.Error("output quantization must be scale " + std::to_string(want_scale) + ", zero point " +
                       std::to_string(want_zp) + " for " + DataTypeName(output.type) + " output");
    }
    out_scale_ = out_q.scale;
    out_zp_ = out_q.zero_point;
    if (input.type == DataType::kInt16) {
      if (in_q.zero_point != 0) return ctx.Error("int16 input zero point must be 0");
      constexpr double kRange = 65535.0;
      FillInt16Lut<double>(10.0 / kRange, 32767, 2.0 / kRange, 0, [](double v) { return std::exp(v); }, &exp_lut_);
      FillInt16Lut<double>(1.0 / kRange, -32768, 2.0 / kRange, 0, [](double v) { return 1.0 / (1.0 + v); },
                           &recip_lut_);
      input_mult_ = QuantizeMultiplier(static_cast<double>(in_q.scale) * static_cast<double>(beta_) / (10.0 / kRange));
      return ctx.ResizeOutput(0, input.shape);
    }
    const float scale = -in_q.scale * beta_;
    for (int32_t d = 0; d <= 255; ++d) {
      table_[255 - d] = std::exp(scale * static_cast<float>(d));
      // A negative beta can overflow the exponential: the row sums, and the
      // float-to-integer conversions after them, would be undefined.
      if (!std::isfinite(table_[255 - d])) {
        return ctx.Error("beta " + std::to_string(beta_) + " with input scale " + std::to_string(in_q.scale) +
                         " overflows the softmax exponential");
      }
    }
    return ctx.ResizeOutput(0, input.shape);
  }

  Status Eval(KernelContext& ctx) override {
    const Tensor& input = ctx.input(0);
    Tensor& output = ctx.output(0);
    const int64_t depth = input.dim(input.rank() - 1);
    if (depth == 0 || input.num_elements() == 0) return Status::Ok();
    const int64_t rows = input.num_elements() / depth;
    auto run = [&](auto* x, auto* y) {
      ctx.ParallelFor(rows, std::max<int64_t>(1, 4096 / depth), [&](int64_t begin, int64_t end) {
        SoftmaxRows(table_, x + begin * depth, y + begin * depth, end - begin, depth, out_scale_, out_zp_);
      });
    };
    const bool wide = output.type == DataType::kInt16;
    if (input.type == DataType::kInt16) {
      const int16_t* x = input.data_as<int16_t>();
      int16_t* y = output.data_as<int16_t>();
      ctx.ParallelFor(rows, std::max<int64_t>(1, 4096 / depth), [&](int64_t begin, int64_t end) {
        SoftmaxRowsInt16(exp_lut_, recip_lut_, input_mult_, x + begin * depth, y + begin * depth, end - begin, depth);
      });
      return Status::Ok();
    }
    if (input.type == DataType::kUInt8) {
      if (wide) run(input.data_as<uint8_t>(), output.data_as<int16_t>());
      else run(input.data_as<uint8_t>(), output.data_as<uint8_t>());
    } else {
      if (wide) run(input.data_as<int8_t>(), output.data_as<int16_t>());
      else run(input.data_as<int8_t>(), output.data_as<int8_t>());
    }
    return Status::Ok();
  }

 private:
  float beta_;
  float out_scale_ = 1.f / 256;
  int32_t out_zp_ = 0;
  float table_[256] = {};
  Int16Lut exp_lut_{}, recip_lut_{};
  QuantizedMultiplier input_mult_;
};

}  // namespace

StatusOr<std::unique_ptr<Kernel>> CreateQuantizedSoftmax(const Node& node) {
  float beta = 0.f;  // schema default when the options table is absent
  if (const auto* o = GetOptions<tflite::SoftmaxOptions>(node)) beta = o->beta();
  if (!std::isfinite(beta)) {
    return InvalidArgumentError(node.Describe() + ": beta is " + std::to_string(beta) + "; it must be finite");
  }
  return std::unique_ptr<Kernel>(std::make_unique<QuantizedSoftmaxKernel>(beta));
}

}  // namespace relite::cpu
