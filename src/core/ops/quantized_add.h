// XNNPACK's 8-bit ADD/SUB parameters, shared by the CPU kernel
// (src/kernels/cpu/internal/quantized_binary.h) and the GPU delegate's exact
// 8-bit ADD/SUB, so both compute the same codes.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace relite {

// XNNPACK's quantized ADD/SUB: both input-to-output scale ratios as float,
// the larger magnitude picks a shift that puts its multiplier in
// [2^20, 2^21); out = ((bias + a * a_mul + b * b_mul) >> shift) + zp_out with
// an arithmetic shift and the rounding constant folded into bias. SUB
// negates b's ratio.
struct XnnAddParams {
  int32_t a_multiplier = 0;
  int32_t b_multiplier = 0;
  int32_t bias = 0;
  int shift = 0;
};

// The ratio range the XNNPACK delegate accepts for ADD/SUB: [2^-10, 2^8).
inline bool XnnAddRatioSupported(float ratio) { return ratio >= 1.0f / 1024.0f && ratio < 256.0f; }

inline XnnAddParams MakeXnnAddParams(float a_scale, float b_scale, float out_scale, int32_t a_zero_point,
                                     int32_t b_zero_point, bool subtract) {
  const float a_ratio = a_scale / out_scale;
  float b_ratio = b_scale / out_scale;
  if (subtract) b_ratio = -b_ratio;
  const float max_abs = std::max(std::fabs(a_ratio), std::fabs(b_ratio));
  int exponent = 0;
  (void)std::frexp(max_abs, &exponent);  // max_abs = m * 2^exponent, m in [0.5, 1)
  XnnAddParams p;
  p.shift = 20 - (exponent - 1);
  // Scaling by 2^shift is exact (an exponent change), then round half to even.
  const auto a_abs = static_cast<int32_t>(std::nearbyint(std::ldexp(std::fabs(a_ratio), p.shift)));
  const auto b_abs = static_cast<int32_t>(std::nearbyint(std::ldexp(std::fabs(b_ratio), p.shift)));
  p.a_multiplier = std::signbit(a_ratio) ? -a_abs : a_abs;
  p.b_multiplier = std::signbit(b_ratio) ? -b_abs : b_abs;
  p.bias = (int32_t{1} << (p.shift - 1)) - p.a_multiplier * a_zero_point - p.b_multiplier * b_zero_point;
  return p;
}

}  // namespace relite
