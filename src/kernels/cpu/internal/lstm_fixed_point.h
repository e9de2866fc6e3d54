// 16-bit fixed-point arithmetic of TFLite's integer LSTM (the gemmlowp
// FixedPoint<int16_t, N> algorithms), written out on plain integers.
//
// A value with N integer bits is an int16 raw r meaning r / 2^(15 - N).
// gemmlowp's generic int16 code computes in int and converts back to int16,
// so plain additions and negations wrap modulo 2^16; only the operations
// that saturate in gemmlowp saturate here. Every helper reproduces that bit
// for bit, which is what makes the LSTM gates match TFLite exactly:
//   sigmoid:  input Q3.12 (N = 3), output Q0.15;
//   tanh:     input with N integer bits (3 for the cell gate, 15 + log2 of
//             the cell-state scale for the cell output), output Q0.15.
#pragma once

#include <cstdint>

namespace relite::cpu::lstm_fp {

inline int16_t Wrap(int32_t v) { return static_cast<int16_t>(v); }  // modulo 2^16 (C++20)

// Round-to-nearest (ties away from zero) of a*b / 2^15; -1 * -1 saturates.
inline int16_t Mul(int16_t a, int16_t b) {
  if (a == INT16_MIN && b == INT16_MIN) return INT16_MAX;
  const int32_t ab = static_cast<int32_t>(a) * static_cast<int32_t>(b);
  const int32_t nudge = ab >= 0 ? (1 << 14) : (1 - (1 << 14));
  return static_cast<int16_t>((ab + nudge) / (1 << 15));
}

// x / 2^e rounded to nearest, ties away from zero (e >= 0).
inline int32_t RoundingShiftRight32(int32_t x, int e) {
  const int32_t mask = static_cast<int32_t>((int64_t{1} << e) - 1);
  const int32_t threshold = (mask >> 1) + (x < 0 ? 1 : 0);
  return (x >> e) + ((x & mask) > threshold ? 1 : 0);
}
inline int16_t RoundingShiftRight(int16_t x, int e) { return Wrap(RoundingShiftRight32(x, e)); }

// x * 2^e: saturating for e > 0, rounding for e < 0.
inline int16_t MulByPow2(int16_t x, int e) {
  if (e == 0) return x;
  if (e < 0) return RoundingShiftRight(x, -e);
  const int32_t limit = (1 << (15 - e)) - 1;
  if (x > limit) return INT16_MAX;
  if (x < -limit) return INT16_MIN;
  return Wrap(static_cast<int32_t>(x) * (1 << e));
}

inline int16_t SaturatingAdd(int16_t a, int16_t b) {
  const int32_t s = static_cast<int32_t>(a) + b;
  return static_cast<int16_t>(s > INT16_MAX ? INT16_MAX : (s < INT16_MIN ? INT16_MIN : s));
}

// (a + b) / 2 rounded half away from zero.
inline int16_t RoundingHalfSum(int16_t a, int16_t b) {
  const int32_t s = static_cast<int32_t>(a) + b;
  return static_cast<int16_t>((s + (s >= 0 ? 1 : -1)) / 2);
}

// gemmlowp writes its constants as Q-format int32 values; the 16-bit raw is
// that value divided by 2^16 with rounding.
constexpr int16_t Constant(int32_t q31_raw) {
  const int32_t mask = 0xFFFF;
  const int32_t threshold = (mask >> 1) + (q31_raw < 0 ? 1 : 0);
  return static_cast<int16_t>((q31_raw >> 16) + ((q31_raw & mask) > threshold ? 1 : 0));
}

// exp(a) for a in [-1/4, 0), a in Q0.15: a 4th-order Taylor expansion around -1/8.
inline int16_t ExpQuarterInterval(int16_t a) {
  constexpr int16_t kExpMinusEighth = Constant(1895147668);
  constexpr int16_t kOneThird = Constant(715827883);
  const int16_t x = Wrap(a + (1 << 12));  // a + 1/8
  const int16_t x2 = Mul(x, x);
  const int16_t x3 = Mul(x2, x);
  const int16_t x4 = Mul(x2, x2);
  const int16_t x4_over_4 = MulByPow2(x4, -2);
  const int16_t poly = MulByPow2(Wrap(Mul(Wrap(x4_over_4 + x3), kOneThird) + x2), -1);
  return SaturatingAdd(kExpMinusEighth, Mul(kExpMinusEighth, Wrap(x + poly)));
}

// exp(a) for a <= 0 with kIntegerBits integer bits in the input; Q0.15 out.
template <int kIntegerBits>
int16_t ExpOnNegative(int16_t a) {
  static_assert(kIntegerBits >= 0 && kIntegerBits <= 12, "unsupported format");
  constexpr int kFrac = 15 - kIntegerBits;
  constexpr int16_t kQuarter = static_cast<int16_t>(1 << (kFrac - 2));
  const int16_t a_mod_quarter_minus_quarter = Wrap((a & (kQuarter - 1)) - kQuarter);
  int16_t result = ExpQuarterInterval(MulByPow2(a_mod_quarter_minus_quarter, kIntegerBits));
  const int16_t remainder = Wrap(a_mod_quarter_minus_quarter - a);
  // exp(-2^k) factors for each bit of the remainder, k = -2 .. 4.
  constexpr int32_t kFactors[7] = {1672461947, 1302514674, 790015084, 290630308, 39332535, 720401, 242};
  for (int k = -2; k <= 4; ++k) {
    if (kIntegerBits > k) {
      const int bit = kFrac + k;
      if (remainder & Wrap(1 << bit)) result = Mul(result, Constant(kFactors[k + 2]));
    }
  }
  if constexpr (kIntegerBits > 5) {
    constexpr int16_t kClamp = Constant(-(1 << (36 - kIntegerBits)));  // -32
    if (a < kClamp) result = 0;
  }
  if (a == 0) result = INT16_MAX;
  return result;
}

// Newton-Raphson reciprocal of (1 + a) / 2 in Q2.13, three iterations.
inline int16_t HalfReciprocalIterations(int16_t half_denominator) {
  constexpr int16_t k48Over17 = Constant(1515870810);
  constexpr int16_t kMinus32Over17 = Constant(-1010580540);
  constexpr int16_t kOneQ2 = 1 << 13;
  int16_t x = Wrap(k48Over17 + Mul(half_denominator, kMinus32Over17));
  for (int i = 0; i < 3; ++i) {
    const int16_t one_minus = Wrap(kOneQ2 - Mul(half_denominator, x));
    x = Wrap(x + MulByPow2(Mul(x, one_minus), 2));
  }
  return x;
}

// 1 / (1 + a) for a in (0, 1), Q0.15 in and out.
inline int16_t OneOverOnePlus(int16_t a) {
  const int16_t x = HalfReciprocalIterations(RoundingHalfSum(a, INT16_MAX));
  return MulByPow2(x, 1);  // x / 2 from Q2.13, read as Q1.14, to Q0.15
}

// (1 - a) / (1 + a) for a in (0, 1), Q0.15 in and out.
inline int16_t OneMinusOverOnePlus(int16_t a) {
  const int16_t x = HalfReciprocalIterations(RoundingHalfSum(a, INT16_MAX));
  return MulByPow2(Wrap(x - (1 << 13)), 2);
}

// logistic(a), input with kIntegerBits integer bits, output Q0.15.
template <int kIntegerBits>
int16_t Logistic(int16_t a) {
  if (a == 0) return Constant(1 << 30);  // one half
  const bool positive = a > 0;
  const int16_t abs_a = positive ? a : Wrap(-a);
  const int16_t r = OneOverOnePlus(ExpOnNegative<kIntegerBits>(Wrap(-abs_a)));
  return positive ? r : Wrap(INT16_MAX - r);
}

// tanh(a), input with kIntegerBits integer bits, output Q0.15.
template <int kIntegerBits>
int16_t Tanh(int16_t a) {
  if (a == 0) return 0;
  const bool negative = a < 0;
  const int16_t neg_abs = negative ? a : Wrap(-a);
  // exp(2 * neg_abs): the same raw read with one more integer bit.
  const int16_t t = OneMinusOverOnePlus(ExpOnNegative<kIntegerBits + 1>(neg_abs));
  return negative ? Wrap(-t) : t;
}

using UnaryFn = int16_t (*)(int16_t);

// Tanh for a run-time integer-bit count in [0, 6] (TFLite's range), or null.
inline UnaryFn TanhForIntegerBits(int integer_bits) {
  switch (integer_bits) {
    case 0: return &Tanh<0>;
    case 1: return &Tanh<1>;
    case 2: return &Tanh<2>;
    case 3: return &Tanh<3>;
    case 4: return &Tanh<4>;
    case 5: return &Tanh<5>;
    case 6: return &Tanh<6>;
    default: return nullptr;
  }
}

}  // namespace relite::cpu::lstm_fp
