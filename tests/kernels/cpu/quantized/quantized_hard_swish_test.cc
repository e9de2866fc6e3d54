// Quantized HARD_SWISH: TFLite's builtin 16-bit fixed-point arithmetic.
#include <algorithm>
#include <cmath>
#include <cstdint>

#include <gtest/gtest.h>

#include "tests/kernels/cpu/quantized/quantized_activation_test_util.h"

namespace relite {
namespace {

using testing::RunOverAllValues;
constexpr auto kOp = tflite::BuiltinOperator::HARD_SWISH;

double HardSwish(double x) { return x * std::min(6.0, std::max(0.0, x + 3.0)) / 6.0; }

TEST(QuantizedHardSwish, HandComputedEntries) {
  // int8, in scale 1/16 zp 0, out scale 1/16 zp 0: x <= -3 -> 0, x >= 3 -> x.
  const auto y = RunOverAllValues<int8_t>(kOp, 1.f / 16, 0, 1.f / 16, 0);
  EXPECT_EQ(y[128 + 0], 0);
  EXPECT_EQ(y[128 - 64], 0);    // x = -4
  EXPECT_EQ(y[128 + 64], 64);   // x = 4
  EXPECT_EQ(y[128 + 127], 127); // x = 7.94
  // x = 1: 1 * 4 / 6 = 0.667 -> 10.67 steps; the fixed-point path gives 11.
  EXPECT_EQ(y[128 + 16], 11);
}

TEST(QuantizedHardSwish, MatchesFloatWithinOneStep) {
  // The fixed-point path is accurate to about one output step.
  for (int zp : {0, 50, 200}) {
    const float in_scale = 0.05f, out_scale = 0.04f;
    const int out_zp = 30;
    const auto y = RunOverAllValues<uint8_t>(kOp, in_scale, zp, out_scale, out_zp);
    for (int i = 0; i < 256; ++i) {
      const double x = (i - zp) * static_cast<double>(in_scale);
      const double want = std::min(255.0, std::max(0.0, HardSwish(x) / out_scale + out_zp));
      EXPECT_LE(std::fabs(y[static_cast<size_t>(i)] - want), 1.0) << "q=" << i << " zp=" << zp;
    }
  }
}

}  // namespace
}  // namespace relite
