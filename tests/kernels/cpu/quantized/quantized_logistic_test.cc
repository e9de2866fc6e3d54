// Quantized LOGISTIC: XNNPACK's table, built in float with expf.
//
// libm: the table calls the C library's expf, as XNNPACK does. Whether its
// last ulp matters was measured (glibc 2.36): over 200,000 random input
// scales x 256 inputs (51.2M arguments) expf differed from the correctly
// rounded float(exp(double)) for 31,596 arguments, and not one of them
// changed a rounded table entry (output scales 1/256 and 1/128), so the
// table does not depend on the libm's expf accuracy in practice.
#include <cmath>
#include <cstdint>
#include <string>

#include <gtest/gtest.h>

#include "tests/kernels/cpu/quantized/quantized_activation_test_util.h"

namespace relite {
namespace {

using testing::RunOverAllValues;
constexpr auto kOp = tflite::BuiltinOperator::LOGISTIC;

TEST(QuantizedLogistic, HandComputedEntries) {
  // uint8, in scale 1/16, zp 128; out 1/256, zp 0.
  const auto y = RunOverAllValues<uint8_t>(kOp, 1.f / 16, 128, 1.f / 256, 0);
  EXPECT_EQ(y[128], 128);  // sigmoid(0) * 256 = 128
  EXPECT_EQ(y[255], 255);  // sigmoid(7.9375) * 256 = 255.91 -> 256, clamped
  EXPECT_EQ(y[0], 0);      // sigmoid(-8) * 256 = 0.086
  // sigmoid(1) * 256 = 187.14 -> 187.
  EXPECT_EQ(y[128 + 16], 187);
  // int8 with the standard output (1/256, -128): sigmoid(0) -> 0.
  const auto z = RunOverAllValues<int8_t>(kOp, 0.1f, 0, 1.f / 256, -128);
  EXPECT_EQ(z[128], 0);
}

TEST(QuantizedLogistic, MatchesFloatWithinHalfStep) {
  for (int zp : {-100, 0, 37}) {
    const float in_scale = 0.0625f, out_scale = 0.01f;
    const int out_zp = 5;
    const auto y = RunOverAllValues<int8_t>(kOp, in_scale, zp, out_scale, out_zp);
    for (int i = 0; i < 256; ++i) {
      const double x = (i - 128 - zp) * static_cast<double>(in_scale);
      const double want = std::min(127.0, std::max(-128.0, 1.0 / (1.0 + std::exp(-x)) / out_scale + out_zp));
      EXPECT_LE(std::fabs(y[static_cast<size_t>(i)] - want), 0.5 + 1e-4) << "q=" << i - 128 << " zp=" << zp;
    }
  }
}

// int16: TFLite's fixed-point kernel at input scale 2^-12 (16-bit gemmlowp:
// within 16 output steps), its table otherwise (within 4 steps, monotonic);
// both exact at 0. The golden test checks every input against LiteRT.
TEST(QuantizedLogistic, Int16FixedPointAndTable) {
  for (float in_scale : {1.f / 4096, 0.0007f, 0.003f}) {
    const auto y = testing::RunInt16OverAllValues(kOp, 3, in_scale, 1.f / 32768);
    ASSERT_EQ(y.size(), 65536u);
    const bool fixed_point = in_scale == 1.f / 4096 || in_scale == 1.f / 8192;
    EXPECT_EQ(y[32768], 16384) << in_scale;  // sigmoid(0) = 1/2
    for (int i = 0; i < 65536; ++i) {
      const double x = (i - 32768) * static_cast<double>(in_scale);
      const double want = std::min(32767.0, 32768.0 / (1.0 + std::exp(-x)));
      ASSERT_LE(std::fabs(y[static_cast<size_t>(i)] - want), fixed_point ? 16.0 : 4.0) << "q=" << i - 32768 << " scale=" << in_scale;
      if (i > 0 && !fixed_point) {
        ASSERT_GE(y[static_cast<size_t>(i)], y[static_cast<size_t>(i) - 1]) << i - 32768;
      }
    }
  }
}

TEST(QuantizedLogistic, Int16HandComputedTableEntries) {
  // Input scale 0.001: multiplier int(0.001 * 12288 * 2^11) = 25165, shift 11.
  // q = 777: (777 * 25165 + 1024) >> 11 = 9547; 9547 >> 9 = 18, low 9 bits 331;
  // table 44511, 45102: (44511 << 9) + 331 * 591 = 22985253; + 512, >> 10 = 22447.
  const auto y = testing::RunInt16OverAllValues(kOp, 3, 0.001f, 1.f / 32768);
  ASSERT_EQ(y.size(), 65536u);
  EXPECT_EQ(y[32768 + 777], 22447);
  // Negative inputs mirror: (2^25 - 22985253 + 511) >> 10 = 10321.
  EXPECT_EQ(y[32768 - 777], 10321);
}

TEST(QuantizedLogistic, Int16NeedsTheFixedOutputScaleAndZeroPoints) {
  Status s;
  EXPECT_TRUE(testing::RunInt16OverAllValues(kOp, 3, 0.001f, 1.f / 16384, &s).empty());
  EXPECT_NE(s.ToString().find("2^-15"), std::string::npos) << s.ToString();
  testing::SingleOpModel m;
  m.AddInput(DataType::kInt16, {4}, testing::Quant(0.001f, 3));
  m.AddOutput(DataType::kInt16, {}, testing::Quant(1.f / 32768, 0));
  m.SetBuiltinOp(kOp, 3);
  const Status z = m.Build();
  ASSERT_FALSE(z.ok());
  EXPECT_NE(z.ToString().find("zero point"), std::string::npos) << z.ToString();
}

}  // namespace
}  // namespace relite
