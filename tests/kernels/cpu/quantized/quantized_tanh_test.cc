// Quantized TANH: XNNPACK's table, built in float with tanhf.
//
// libm: glibc 2.36's tanhf is not correctly rounded: over 200,000 random
// input scales x 256 inputs (51.2M arguments) it differed from
// float(tanh(double)) for 1,911,391 arguments, and 19 of those changed a
// rounded table entry at output scale 1/128 (e.g. x = +-0x1.3a72a6p-3).
// XNNPACK calls the C library's tanhf, so relite calls the same function
// rather than a more accurate one: on the same libm the tables agree bit
// for bit (a double-precision table would differ in those rare entries).
#include <cmath>
#include <cstdint>

#include <gtest/gtest.h>

#include "tests/kernels/cpu/quantized/quantized_activation_test_util.h"

namespace relite {
namespace {

using testing::RunOverAllValues;
constexpr auto kOp = tflite::BuiltinOperator::TANH;

TEST(QuantizedTanh, HandComputedEntries) {
  // uint8, in 1/32 zp 128; out 1/128 zp 128.
  const auto y = RunOverAllValues<uint8_t>(kOp, 1.f / 32, 128, 1.f / 128, 128);
  EXPECT_EQ(y[128], 128);      // tanh(0)
  EXPECT_EQ(y[128 + 32], 225);  // tanh(1) * 128 = 97.48 -> 97, + 128
  EXPECT_EQ(y[128 - 32], 31);   // -97 + 128
  EXPECT_EQ(y[255], 255);       // tanh(3.97) * 128 = 127.91 -> 128, + 128 = 256, clamped
  EXPECT_EQ(y[0], 0);           // tanh(-4) * 128 = -127.91 -> -128, + 128
}

TEST(QuantizedTanh, MatchesFloatWithinHalfStep) {
  for (int zp : {-60, 0, 90}) {
    const float in_scale = 0.03f, out_scale = 1.f / 128;
    const auto y = RunOverAllValues<int8_t>(kOp, in_scale, zp, out_scale, 0);
    for (int i = 0; i < 256; ++i) {
      const double x = (i - 128 - zp) * static_cast<double>(in_scale);
      const double want = std::min(127.0, std::max(-128.0, std::tanh(x) / out_scale));
      EXPECT_LE(std::fabs(y[static_cast<size_t>(i)] - want), 0.5 + 1e-4) << "q=" << i - 128 << " zp=" << zp;
    }
  }
}

// int16: TFLite's fixed-point kernel at input scales 2^-12 and 2^-13 (16-bit
// gemmlowp: within 16 output steps, and not monotonic, as in LiteRT), its
// table otherwise (within 8 steps, monotonic); both 0 at 0. The golden test
// checks every input against LiteRT.
TEST(QuantizedTanh, Int16FixedPointAndTable) {
  for (float in_scale : {1.f / 4096, 1.f / 8192, 0.0007f, 0.003f}) {
    const auto y = testing::RunInt16OverAllValues(kOp, 3, in_scale, 1.f / 32768);
    ASSERT_EQ(y.size(), 65536u);
    const bool fixed_point = in_scale == 1.f / 4096 || in_scale == 1.f / 8192;
    EXPECT_EQ(y[32768], 0) << in_scale;
    for (int i = 0; i < 65536; ++i) {
      const double x = (i - 32768) * static_cast<double>(in_scale);
      const double want = std::min(32767.0, 32768.0 * std::tanh(x));
      ASSERT_LE(std::fabs(y[static_cast<size_t>(i)] - want), fixed_point ? 16.0 : 8.0) << "q=" << i - 32768 << " scale=" << in_scale;
      if (i > 0 && !fixed_point) {
        ASSERT_GE(y[static_cast<size_t>(i)], y[static_cast<size_t>(i) - 1]) << i - 32768 << " scale=" << in_scale;
      }
    }
  }
}

TEST(QuantizedTanh, Int16HandComputedTableEntries) {
  // Input scale 0.001: multiplier 25165, shift 11; q = 500 (x = 0.5):
  // (500 * 25165 + 1024) >> 11 = 6144; 6144 >> 8 = 24 (the table's sigmoid(1),
  // tanh(0.5) = 2 sigmoid(1) - 1), low byte 0: (47911 << 8) - 2^23 + 128 = 3876736,
  // >> 8 = 15143; the negative side: (-(47911 << 8) + 2^23 + 127) >> 8 = -15143.
  const auto y = testing::RunInt16OverAllValues(kOp, 3, 0.001f, 1.f / 32768);
  ASSERT_EQ(y.size(), 65536u);
  EXPECT_EQ(y[32768 + 500], 15143);
  EXPECT_EQ(y[32768 - 500], -15143);
}

}  // namespace
}  // namespace relite
