// The fixed-point primitives every 8-bit kernel builds on, on hand-computed
// cases: rounding ties, saturation, negative values, multiplier encoding.
#include "src/kernels/cpu/internal/quantization.h"

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>

#include <gtest/gtest.h>

namespace relite::cpu {
namespace {

constexpr int32_t kMin = std::numeric_limits<int32_t>::min();
constexpr int32_t kMax = std::numeric_limits<int32_t>::max();

TEST(QuantizationArithmetic, SaturatingRoundingDoublingHighMul) {
  // (a * b * 2) / 2^32 = a * b / 2^31, rounded by adding 2^30 (or 1 - 2^30
  // for a negative product) and truncating: positive ties round up, negative
  // ties round toward zero (gemmlowp's rounding, which TFLite inherits).
  EXPECT_EQ(SaturatingRoundingDoublingHighMul(1 << 30, 1 << 30), 1 << 29);  // 0.5 * 0.5 = 0.25
  EXPECT_EQ(SaturatingRoundingDoublingHighMul(kMax, kMax), kMax - 1);
  // The one overflow: (-1) * (-1) = 1 does not fit Q31: saturates.
  EXPECT_EQ(SaturatingRoundingDoublingHighMul(kMin, kMin), kMax);
  EXPECT_EQ(SaturatingRoundingDoublingHighMul(kMin, kMax), -kMax);
  EXPECT_EQ(SaturatingRoundingDoublingHighMul(3, 1 << 30), 2);    // 1.5 -> 2
  EXPECT_EQ(SaturatingRoundingDoublingHighMul(-3, 1 << 30), -1);  // -1.5 -> -1 (toward zero)
  EXPECT_EQ(SaturatingRoundingDoublingHighMul(1, 1 << 30), 1);    // 0.5 -> 1
  EXPECT_EQ(SaturatingRoundingDoublingHighMul(-1, 1 << 30), 0);   // -0.5 -> 0
  EXPECT_EQ(SaturatingRoundingDoublingHighMul(5, 1 << 30), 3);    // 2.5 -> 3
  EXPECT_EQ(SaturatingRoundingDoublingHighMul(-5, 1 << 30), -2);  // -2.5 -> -2
  EXPECT_EQ(SaturatingRoundingDoublingHighMul(-7, 1 << 29), -2);  // -1.75 -> -2 (not a tie)
  EXPECT_EQ(SaturatingRoundingDoublingHighMul(0, kMax), 0);
}

TEST(QuantizationArithmetic, RoundingDivideByPOTRoundsHalfAwayFromZero) {
  EXPECT_EQ(RoundingDivideByPOT(5, 1), 3);    // 2.5 -> 3
  EXPECT_EQ(RoundingDivideByPOT(-5, 1), -3);  // -2.5 -> -3
  EXPECT_EQ(RoundingDivideByPOT(6, 2), 2);    // 1.5 -> 2
  EXPECT_EQ(RoundingDivideByPOT(-6, 2), -2);  // -1.5 -> -2
  EXPECT_EQ(RoundingDivideByPOT(5, 2), 1);    // 1.25 -> 1
  EXPECT_EQ(RoundingDivideByPOT(-5, 2), -1);
  EXPECT_EQ(RoundingDivideByPOT(7, 2), 2);    // 1.75 -> 2
  EXPECT_EQ(RoundingDivideByPOT(12345, 0), 12345);
  EXPECT_EQ(RoundingDivideByPOT(kMax, 31), 1);
  EXPECT_EQ(RoundingDivideByPOT(kMin, 31), -1);
}

TEST(QuantizationArithmetic, QuantizeMultiplierEncoding) {
  QuantizedMultiplier m = QuantizeMultiplier(0.5);
  EXPECT_EQ(m.multiplier, 1 << 30);
  EXPECT_EQ(m.shift, 0);
  m = QuantizeMultiplier(1.0);
  EXPECT_EQ(m.multiplier, 1 << 30);
  EXPECT_EQ(m.shift, 1);
  m = QuantizeMultiplier(0.75);
  EXPECT_EQ(m.multiplier, 3 << 29);
  EXPECT_EQ(m.shift, 0);
  // 0.1 = 0.8 * 2^-3: round(0.8 * 2^31) = 1717986918.4 -> 1717986918.
  m = QuantizeMultiplier(0.1);
  EXPECT_EQ(m.multiplier, 1717986918);
  EXPECT_EQ(m.shift, -3);
  // A mantissa that rounds up to 2^31 carries into the exponent.
  m = QuantizeMultiplier(std::nextafter(1.0, 0.0));
  EXPECT_EQ(m.multiplier, 1 << 30);
  EXPECT_EQ(m.shift, 1);
  // Below 2^-31 (shift < -31) the multiplier is zero.
  m = QuantizeMultiplier(1e-12);
  EXPECT_EQ(m.multiplier, 0);
  EXPECT_EQ(m.shift, 0);
  m = QuantizeMultiplier(0.0);
  EXPECT_EQ(m.multiplier, 0);
}

TEST(QuantizationArithmetic, MultiplyByQuantizedMultiplierMatchesRealProduct) {
  // x * 0.1: 25 * 0.1 = 2.5 -> rounds to 3 (half away from zero), -25 -> -3.
  const QuantizedMultiplier tenth = QuantizeMultiplier(0.1);
  EXPECT_EQ(MultiplyByQuantizedMultiplier(25, tenth), 3);
  EXPECT_EQ(MultiplyByQuantizedMultiplier(-25, tenth), -3);
  EXPECT_EQ(MultiplyByQuantizedMultiplier(24, tenth), 2);
  // Multipliers >= 1 use the left shift.
  EXPECT_EQ(MultiplyByQuantizedMultiplier(100, QuantizeMultiplier(3.0)), 300);
  // 2.5 = 0.625 * 2^2: (-7 << 2) * 0.625 = -17.5 in the high-mul, a negative
  // tie: -17 (toward zero); then no right shift.
  EXPECT_EQ(MultiplyByQuantizedMultiplier(-7, QuantizeMultiplier(2.5)), -17);
  EXPECT_EQ(MultiplyByQuantizedMultiplier(7, QuantizeMultiplier(2.5)), 18);
  // Over a random sweep the result is within 1 of the real product (the
  // double rounding can differ from a single rounding by one).
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> mult(1e-4, 0.99);
  std::uniform_int_distribution<int32_t> acc(-(1 << 20), 1 << 20);
  for (int i = 0; i < 2000; ++i) {
    const double r = mult(rng);
    const int32_t x = acc(rng);
    const int32_t got = MultiplyByQuantizedMultiplier(x, QuantizeMultiplier(r));
    EXPECT_LE(std::fabs(got - x * r), 1.0) << x << " * " << r;
  }
}

TEST(QuantizationArithmetic, RequantizeFp32RoundsHalfToEven) {
  // 5 * 0.5 = 2.5 -> 2 (even), 7 * 0.5 = 3.5 -> 4; -5 * 0.5 = -2.5 -> -2.
  EXPECT_EQ(RequantizeFp32(5, 0.5f, 0, -128, 127), 2);
  EXPECT_EQ(RequantizeFp32(7, 0.5f, 0, -128, 127), 4);
  EXPECT_EQ(RequantizeFp32(-5, 0.5f, 0, -128, 127), -2);
  EXPECT_EQ(RequantizeFp32(-7, 0.5f, 0, -128, 127), -4);
  // Zero point added after rounding, then the clamp.
  EXPECT_EQ(RequantizeFp32(5, 0.5f, 128, 0, 255), 130);
  EXPECT_EQ(RequantizeFp32(1000, 0.5f, 128, 0, 255), 255);
  EXPECT_EQ(RequantizeFp32(-1000, 0.5f, 128, 0, 255), 0);
  EXPECT_EQ(RequantizeFp32(kMax, 1.0f, -3, -128, 127), 127);
  EXPECT_EQ(RequantizeFp32(kMin, 1.0f, -3, -128, 127), -128);
  // A fused RELU6 range inside the type range.
  EXPECT_EQ(RequantizeFp32(100, 1.0f, 10, 10, 70), 70);
}

TEST(QuantizationArithmetic, ActivationRangeInQuantizedDomain) {
  // uint8, scale 0.05, zp 20: q(0) = 20, q(6) = 140, q(-1) = 0, q(1) = 40.
  QuantizedRange r = QuantizedActivationRange(Activation::kRelu, DataType::kUInt8, 0.05f, 20);
  EXPECT_EQ(r.min, 20);
  EXPECT_EQ(r.max, 255);
  r = QuantizedActivationRange(Activation::kRelu6, DataType::kUInt8, 0.05f, 20);
  EXPECT_EQ(r.min, 20);
  EXPECT_EQ(r.max, 140);
  r = QuantizedActivationRange(Activation::kReluN1To1, DataType::kUInt8, 0.05f, 20);
  EXPECT_EQ(r.min, 0);
  EXPECT_EQ(r.max, 40);
  // RELU6 beyond the representable range is cut to the type's range.
  r = QuantizedActivationRange(Activation::kRelu6, DataType::kInt8, 0.1f, -128);
  EXPECT_EQ(r.min, -128);
  EXPECT_EQ(r.max, -68);
  r = QuantizedActivationRange(Activation::kRelu6, DataType::kInt8, 0.01f, 0);
  EXPECT_EQ(r.max, 127);
  r = QuantizedActivationRange(Activation::kNone, DataType::kInt16, 0.01f, 0);
  EXPECT_EQ(r.min, -32768);
  EXPECT_EQ(r.max, 32767);
}

}  // namespace
}  // namespace relite::cpu
