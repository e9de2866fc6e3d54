// TFLite's GetInvSqrtQuantizedMultiplierExp (used by its quantized RSQRT and
// L2_NORMALIZATION): 1/sqrt(input) as a Q31 multiplier and a shift, found by
// five Newton-Raphson steps in gemmlowp fixed point (3 integer bits) from a
// starting guess of 1. Reproduced step by step because the result is only
// approximately 1/sqrt and the kernels' outputs depend on its exact bits.
#pragma once

#include <cstdint>
#include <limits>

#include "src/kernels/cpu/internal/quantization.h"

namespace relite::cpu {

namespace inv_sqrt_internal {

// gemmlowp's SaturatingRoundingMultiplyByPOT<exponent> for exponent > 0: a
// left shift that saturates.
inline int32_t SaturatingShiftLeft(int32_t x, int exponent) {
  const int32_t threshold = std::numeric_limits<int32_t>::max() >> exponent;
  if (x > threshold) return std::numeric_limits<int32_t>::max();
  if (x < -threshold) return std::numeric_limits<int32_t>::min();
  return static_cast<int32_t>(static_cast<uint32_t>(x) << exponent);
}

inline int32_t WrapSub(int32_t a, int32_t b) {
  return static_cast<int32_t>(static_cast<uint32_t>(a) - static_cast<uint32_t>(b));
}

}  // namespace inv_sqrt_internal

// `reverse_shift` is -1 for the kernels here (the shift comes back as a left
// shift, negative = right). input <= 1 gives (INT32_MAX, 0), as in TFLite.
inline QuantizedMultiplier InvSqrtQuantizedMultiplierExp(int32_t input, int reverse_shift) {
  using inv_sqrt_internal::SaturatingShiftLeft;
  using inv_sqrt_internal::WrapSub;
  if (input <= 1) return {std::numeric_limits<int32_t>::max(), 0};
  int shift = 11;
  while (input >= (1 << 29)) {
    input /= 4;
    ++shift;
  }
  const int max_left_shift_bits = __builtin_clz(static_cast<uint32_t>(input)) - 1;
  const int left_shift_bit_pairs = max_left_shift_bits / 2 - 1;
  shift -= left_shift_bit_pairs;
  input <<= 2 * left_shift_bit_pairs;  // now in [2^27, 2^29)
  // Raw values of Q3.28 numbers; a product of Qa and Qb is Q(a+b).
  const int32_t half_input = RoundingDivideByPOT(input >> 1, 1);
  constexpr int32_t kHalfThree = (1 << 28) + (1 << 27);  // 1.5 in Q3.28
  int32_t x = 1 << 28;                                   // 1.0
  for (int i = 0; i < 5; ++i) {
    const int32_t x2 = SaturatingRoundingDoublingHighMul(x, x);    // Q6
    const int32_t x3_q9 = SaturatingRoundingDoublingHighMul(x2, x);  // Q9
    const int32_t x3 = SaturatingShiftLeft(x3_q9, 6);                // Q3
    const int32_t a = SaturatingRoundingDoublingHighMul(kHalfThree, x);  // Q6
    const int32_t b = SaturatingRoundingDoublingHighMul(half_input, x3);  // Q6
    x = SaturatingShiftLeft(WrapSub(a, b), 3);
  }
  constexpr int32_t kHalfSqrt2 = 1518500250;  // sqrt(2)/2 in Q0.31
  QuantizedMultiplier m;
  m.multiplier = SaturatingRoundingDoublingHighMul(x, kHalfSqrt2);
  if (shift < 0) {
    m.multiplier = static_cast<int32_t>(static_cast<uint32_t>(m.multiplier) << -shift);
    shift = 0;
  }
  m.shift = shift * reverse_shift;
  return m;
}

}  // namespace relite::cpu
