// Quantized AVERAGE_POOL_2D: TFLite's builtin rounding ((s +- n/2) / n, C
// division) and TFLite's clamp bounds for a fused activation.
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include "tests/kernels/cpu/quantized/quantized_op_test_util.h"
#include "tests/testing/single_op_model.h"

namespace relite {
namespace {

using testing::Quant;
using testing::SingleOpModel;

template <typename T>
std::vector<T> Pool(tflite::BuiltinOperator op, DataType type, const Shape& shape, const std::vector<T>& x, int filter,
                    int stride, tflite::Padding padding, tflite::ActivationFunctionType act, float scale, int zp) {
  SingleOpModel m;
  const int in = m.AddInput(type, shape, Quant(scale, zp));
  const int out = m.AddOutput(type, {}, Quant(scale, zp));
  m.SetBuiltinOp(op, 1, tflite::BuiltinOptions::Pool2DOptions,
                 tflite::CreatePool2DOptions(m.fbb(), padding, stride, stride, filter, filter, act).Union());
  EXPECT_TRUE(m.Build().ok());
  m.SetInput<T>(in, x);
  EXPECT_TRUE(m.Invoke().ok());
  return m.GetOutput<T>(out);
}

TEST(QuantizedAveragePool2D, HalvesRoundAwayFromZero) {
  // One 2x2 window per channel; channel sums 6, 7, 5 over n = 4:
  // 1.5 -> 2, 1.75 -> 2, 1.25 -> 1 (uint8: (s + 2) / 4).
  const std::vector<uint8_t> u = {1, 2, 1, 2, 2, 1, 1, 2, 1, 2, 1, 2};
  EXPECT_EQ(Pool<uint8_t>(tflite::BuiltinOperator::AVERAGE_POOL_2D, DataType::kUInt8, {1, 2, 2, 3}, u, 2, 2,
                          tflite::Padding::VALID, tflite::ActivationFunctionType::NONE, 0.1f, 0),
            (std::vector<uint8_t>{2, 2, 1}));
  // int8 sums -6, -7, 6: -1.5 -> -2, -1.75 -> -2, 1.5 -> 2.
  const std::vector<int8_t> s = {-1, -2, 1, -2, -2, 2, -1, -1, 1, -2, -2, 2};
  EXPECT_EQ(Pool<int8_t>(tflite::BuiltinOperator::AVERAGE_POOL_2D, DataType::kInt8, {1, 2, 2, 3}, s, 2, 2,
                         tflite::Padding::VALID, tflite::ActivationFunctionType::NONE, 0.1f, -5),
            (std::vector<int8_t>{-2, -2, 2}));
  // int16: -3 / 2 = -1.5 -> -2.
  const std::vector<int16_t> w = {-1, -2};
  EXPECT_EQ(Pool<int16_t>(tflite::BuiltinOperator::AVERAGE_POOL_2D, DataType::kInt16, {1, 1, 2, 1}, w, 2, 2,
                          tflite::Padding::SAME, tflite::ActivationFunctionType::NONE, 0.1f, 0),
            (std::vector<int16_t>{-2}));
}

TEST(QuantizedAveragePool2D, MatchesFloatAverageWithinHalfStep) {
  std::mt19937 rng(7);
  std::uniform_int_distribution<int> d(-128, 127);
  const Shape shape = {2, 9, 7, 19};
  std::vector<int8_t> x(2 * 9 * 7 * 19);
  for (auto& v : x) v = static_cast<int8_t>(d(rng));
  const auto y = Pool<int8_t>(tflite::BuiltinOperator::AVERAGE_POOL_2D, DataType::kInt8, shape, x, 3, 2,
                              tflite::Padding::SAME, tflite::ActivationFunctionType::NONE, 0.05f, 3);
  // SAME, stride 2, filter 3 on 9x7: out 5x4, pad_top = 1, pad_left = 1.
  ASSERT_EQ(y.size(), size_t{2 * 5 * 4 * 19});
  for (int b = 0; b < 2; ++b)
    for (int oy = 0; oy < 5; ++oy)
      for (int ox = 0; ox < 4; ++ox)
        for (int c = 0; c < 19; ++c) {
          double s = 0;
          int n = 0;
          for (int iy = oy * 2 - 1; iy < oy * 2 + 2; ++iy)
            for (int ix = ox * 2 - 1; ix < ox * 2 + 2; ++ix) {
              if (iy < 0 || iy >= 9 || ix < 0 || ix >= 7) continue;
              s += x[((b * 9 + iy) * 7 + ix) * 19 + c];
              ++n;
            }
          const double avg = s / n;
          const int got = y[((b * 5 + oy) * 4 + ox) * 19 + c];
          EXPECT_LE(std::fabs(got - avg), 0.5) << b << " " << oy << " " << ox << " " << c;
        }
}

TEST(QuantizedAveragePool2D, FusedRelu6ClampsInQuantizedDomain) {
  // scale 0.1, zp 10: RELU6 is [10, 70].
  const std::vector<uint8_t> x = {0, 200, 40, 60};
  EXPECT_EQ(Pool<uint8_t>(tflite::BuiltinOperator::AVERAGE_POOL_2D, DataType::kUInt8, {1, 2, 2, 1}, x, 1, 1,
                          tflite::Padding::VALID, tflite::ActivationFunctionType::RELU6, 0.1f, 10),
            (std::vector<uint8_t>{10, 70, 40, 60}));
}

}  // namespace
}  // namespace relite
