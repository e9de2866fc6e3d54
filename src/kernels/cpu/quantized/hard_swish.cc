// Quantized HARD_SWISH (uint8, int8): XNNPACK does not take it, so this is
// TFLite's builtin arithmetic (16-bit fixed point), evaluated once per input
// value into a 256-entry table:
//   hires      = (q - in_zp) * 2^7                       (int16)
//   pre_out    = SRDHM16(hires, out_mult16)              (x on the output scale, before its shift)
//   reluish    = hires rescaled by reluish_mult16 * 2^reluish_exp, saturating,
//                mapping x in [-3, 3] to [-32768, 32767]; then (reluish + 2^15) >> 1 in [0, 1]
//   out        = RoundingDivideByPOT(SDHM16(reluish, pre_out), -out_exp) + out_zp, clamped
// with out_mult = float(in_scale / 128) / out_scale and reluish_mult =
// float(in_scale / 128) / float(3 / 32768), each QuantizeMultiplier'd and
// rounded to 16 bits (SRDHM16 rounds half away from zero, SDHM16 truncates).
#include <algorithm>
#include <cstdint>
#include <limits>
#include <memory>

#include "src/kernels/cpu/internal/quantized_lut.h"
#include "src/kernels/cpu/kernels.h"

namespace relite::cpu {
namespace {

int16_t SaturatingRoundingDoublingHighMul16(int16_t a, int16_t b) {
  if (a == b && a == std::numeric_limits<int16_t>::min()) return std::numeric_limits<int16_t>::max();
  const int32_t ab = static_cast<int32_t>(a) * static_cast<int32_t>(b);
  const int32_t nudge = ab >= 0 ? (1 << 14) : (1 - (1 << 14));
  return static_cast<int16_t>((ab + nudge) / (1 << 15));
}

// Doubling high half, truncating toward zero.
int16_t SaturatingDoublingHighMul16(int16_t a, int16_t b) {
  if (a == b && a == std::numeric_limits<int16_t>::min()) return std::numeric_limits<int16_t>::max();
  return static_cast<int16_t>((static_cast<int32_t>(a) * static_cast<int32_t>(b)) / (1 << 15));
}

int16_t RoundingDivideByPOT16(int16_t x, int exponent) {
  const int64_t mask = (int64_t{1} << exponent) - 1;
  const int64_t remainder = x & mask;
  const int64_t threshold = (mask >> 1) + (x < 0 ? 1 : 0);
  return static_cast<int16_t>((x >> std::min(exponent, 15)) + (remainder > threshold ? 1 : 0));
}

int16_t SaturatingLeftShift16(int16_t value, int amount) {
  const int64_t r = static_cast<int64_t>(value) * (int64_t{1} << amount);
  return static_cast<int16_t>(std::clamp<int64_t>(r, std::numeric_limits<int16_t>::min(),
                                                  std::numeric_limits<int16_t>::max()));
}

// A Q31 multiplier rounded to Q15, saturating at the top.
int16_t DownScaleMultiplier(int32_t m) {
  constexpr int32_t kRound = 1 << 15;
  if (m >= std::numeric_limits<int32_t>::max() - kRound) return std::numeric_limits<int16_t>::max();
  return static_cast<int16_t>((m + kRound) >> 16);
}

Status BuildHardSwishTable(KernelContext& ctx, DataType type, ScaleZeroPoint in, ScaleZeroPoint out, ByteTable* table) {
  const float hires_input_scale = (1.0f / 128.0f) * in.scale;
  const float reluish_scale = 3.0f / 32768.0f;
  const float output_multiplier = hires_input_scale / out.scale;
  const float reluish_multiplier = hires_input_scale / reluish_scale;
  const QuantizedMultiplier om = QuantizeMultiplier(static_cast<double>(output_multiplier));
  const QuantizedMultiplier rm = QuantizeMultiplier(static_cast<double>(reluish_multiplier));
  if (om.shift > 0) {
    return ctx.Unsupported("output scale must be at least input scale / 128 (TFLite's limit)");
  }
  const int16_t out_mult16 = DownScaleMultiplier(om.multiplier);
  const int16_t reluish_mult16 = DownScaleMultiplier(rm.multiplier);
  const int32_t qmin = QuantizedTypeMin(type), qmax = QuantizedTypeMax(type);
  FillByteTable(
      type,
      [&](int32_t q) {
        const auto input_value = static_cast<int16_t>(q - in.zero_point);
        const auto hires = static_cast<int16_t>(input_value * (1 << 7));
        const int16_t pre_out = SaturatingRoundingDoublingHighMul16(hires, out_mult16);
        int16_t reluish = hires;
        if (rm.shift > 0) reluish = SaturatingLeftShift16(reluish, rm.shift - 1);
        reluish = SaturatingRoundingDoublingHighMul16(reluish, reluish_mult16);
        if (rm.shift > 0) reluish = SaturatingLeftShift16(reluish, 1);
        if (rm.shift < 0) reluish = RoundingDivideByPOT16(reluish, -rm.shift);
        reluish = static_cast<int16_t>((reluish + (1 << 15)) >> 1);
        const int16_t pre_shift = SaturatingDoublingHighMul16(reluish, pre_out);
        auto v = static_cast<int16_t>(RoundingDivideByPOT16(pre_shift, -om.shift) + out.zero_point);
        return std::clamp<int32_t>(v, qmin, qmax);
      },
      table);
  return Status::Ok();
}

}  // namespace

StatusOr<std::unique_ptr<Kernel>> CreateQuantizedHardSwish(const Node&) {
  return std::unique_ptr<Kernel>(std::make_unique<ByteTableKernel>(&BuildHardSwishTable));
}

}  // namespace relite::cpu
