// Integer arithmetic shared by the 8-bit kernels.
//
// Two requantization schemes exist in the TFLite ecosystem and relite
// reproduces both bit for bit, because the reference outputs users compare
// against come from TFLite with its default CPU delegate (XNNPACK):
//  - XNNPACK's "fp32" scheme, used for the ops XNNPACK runs (CONV_2D,
//    DEPTHWISE_CONV_2D, FULLY_CONNECTED, TRANSPOSE_CONV, MUL, ...):
//    out = clamp(round_half_even(float(acc) * scale) + zp), where `scale` is
//    computed in float32 in a fixed order.
//  - TFLite's fixed-point scheme (gemmlowp style), used by TFLite's own
//    builtin kernels for the rest: a Q31 multiplier and a shift, rounding
//    half away from zero, applied twice (high-mul, then divide by 2^n).
// Which op follows which is documented in docs/QUANTIZATION.md.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

#include "relite/tensor.h"
#include "src/core/ops/params.h"
#include "src/core/base/saturate.h"
#include "src/kernels/cpu/internal/round_half_even.h"

namespace relite::cpu {

// real_multiplier ~= multiplier * 2^(shift - 31), multiplier in [2^30, 2^31)
// (or 0); shift > 0 means a left shift.
struct QuantizedMultiplier {
  int32_t multiplier = 0;
  int shift = 0;
};

// TFLite's QuantizeMultiplier: frexp, then round(q * 2^31) with the carry into
// the exponent when it rounds up to 2^31; tiny values become 0.
inline QuantizedMultiplier QuantizeMultiplier(double real_multiplier) {
  QuantizedMultiplier m;
  if (real_multiplier == 0.0 || std::isnan(real_multiplier)) return m;
  if (std::isinf(real_multiplier)) {  // no model reaches here (scales are verified finite); never undefined
    m.multiplier = real_multiplier > 0 ? INT32_MAX : -INT32_MAX;
    m.shift = 30;
    return m;
  }
  int shift = 0;
  const double q = std::frexp(real_multiplier, &shift);
  auto q_fixed = static_cast<int64_t>(std::round(q * static_cast<double>(int64_t{1} << 31)));
  if (q_fixed == (int64_t{1} << 31)) {
    q_fixed /= 2;
    ++shift;
  }
  if (shift < -31) {
    shift = 0;
    q_fixed = 0;
  }
  if (shift > 30) {  // saturate as TFLite does for multipliers >= 2^30
    shift = 30;
    q_fixed = (int64_t{1} << 31) - 1;
  }
  m.multiplier = static_cast<int32_t>(q_fixed);
  m.shift = shift;
  return m;
}

// gemmlowp: (a * b * 2) >> 31 with round-half-away-from-zero, saturating the
// one overflow case (INT32_MIN * INT32_MIN).
inline int32_t SaturatingRoundingDoublingHighMul(int32_t a, int32_t b) {
  if (a == b && a == std::numeric_limits<int32_t>::min()) return std::numeric_limits<int32_t>::max();
  const int64_t ab = static_cast<int64_t>(a) * static_cast<int64_t>(b);
  const int64_t nudge = ab >= 0 ? (int64_t{1} << 30) : (1 - (int64_t{1} << 30));
  return static_cast<int32_t>((ab + nudge) / (int64_t{1} << 31));
}

// gemmlowp: x / 2^exponent rounded half away from zero (exponent in [0, 31]).
inline int32_t RoundingDivideByPOT(int32_t x, int exponent) {
  const int32_t mask = static_cast<int32_t>((int64_t{1} << exponent) - 1);
  const int32_t remainder = x & mask;
  const int32_t threshold = (mask >> 1) + (x < 0 ? 1 : 0);
  return (x >> exponent) + (remainder > threshold ? 1 : 0);
}

// TFLite's MultiplyByQuantizedMultiplier (the default "double rounding").
inline int32_t MultiplyByQuantizedMultiplier(int32_t x, QuantizedMultiplier m) {
  const int left = m.shift > 0 ? m.shift : 0;
  const int right = m.shift > 0 ? 0 : -m.shift;
  const auto shifted = static_cast<int32_t>(static_cast<uint32_t>(x) << left);
  return RoundingDivideByPOT(SaturatingRoundingDoublingHighMul(shifted, m.multiplier), right);
}

// XNNPACK's fp32 requantization: float(acc) * scale, rounded to nearest even
// (the default FP rounding mode), plus the zero point, clamped. Clamping
// before or after the rounding gives the same result because the bounds
// are integers.
inline int32_t RequantizeFp32(int32_t acc, float scale, int32_t zero_point, int32_t qmin, int32_t qmax) {
  const float scaled = static_cast<float>(acc) * scale;
  const float lo = static_cast<float>(qmin - zero_point);
  const float hi = static_cast<float>(qmax - zero_point);
  const float clamped = std::min(hi, std::max(lo, scaled));  // a NaN (inf scale x 0) becomes lo
  // |clamped| <= 2^17 for every 8- and 16-bit type.
  return RoundHalfEvenSmall(clamped) + zero_point;
}

inline int32_t QuantizedTypeMin(DataType type) {
  switch (type) {
    case DataType::kUInt8: return 0;
    case DataType::kInt8: return -128;
    case DataType::kInt16: return -32768;
    default: return std::numeric_limits<int32_t>::min();
  }
}
inline int32_t QuantizedTypeMax(DataType type) {
  switch (type) {
    case DataType::kUInt8: return 255;
    case DataType::kInt8: return 127;
    case DataType::kInt16: return 32767;
    default: return std::numeric_limits<int32_t>::max();
  }
}
inline bool IsQuantizedIntType(DataType type) {
  return type == DataType::kUInt8 || type == DataType::kInt8 || type == DataType::kInt16;
}

struct QuantizedRange {
  int32_t min;
  int32_t max;
};

// TFLite's CalculateActivationRangeQuantized: the clamp of a fused
// activation in the output's quantized domain, zp + round(x / scale) with
// round half away from zero, intersected with the type's range.
inline QuantizedRange QuantizedActivationRange(Activation activation, DataType type, float scale, int32_t zero_point) {
  const int32_t qmin = QuantizedTypeMin(type), qmax = QuantizedTypeMax(type);
  auto quantize = [&](float x) { return SaturateToInt32(static_cast<double>(zero_point) + std::round(x / scale)); };
  switch (activation) {
    case Activation::kRelu: return {std::max(qmin, quantize(0.f)), qmax};
    case Activation::kRelu6: return {std::max(qmin, quantize(0.f)), std::min(qmax, quantize(6.f))};
    case Activation::kReluN1To1: return {std::max(qmin, quantize(-1.f)), std::min(qmax, quantize(1.f))};
    default: return {qmin, qmax};
  }
}

}  // namespace relite::cpu
