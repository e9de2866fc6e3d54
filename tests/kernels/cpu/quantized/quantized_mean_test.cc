// Quantized MEAN: XNNPACK's exact integer sum of the raw values,
// scaled in float with both zero points folded into one float bias, rounded
// half to even (src/kernels/cpu/internal/quantized_reduce.h).
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
std::vector<T> Reduce(tflite::BuiltinOperator op, DataType type, const Shape& shape, const std::vector<T>& x,
                      const std::vector<int32_t>& axes, bool keep_dims, Quantization in_q, Quantization out_q,
                      Shape* out_shape = nullptr) {
  SingleOpModel m;
  const int in = m.AddInput(type, shape, in_q);
  m.AddConstInput<int32_t>(DataType::kInt32, {static_cast<int32_t>(axes.size())}, axes);
  const int out = m.AddOutput(type, {}, out_q);
  m.SetBuiltinOp(op, 1, tflite::BuiltinOptions::ReducerOptions, tflite::CreateReducerOptions(m.fbb(), keep_dims).Union());
  EXPECT_TRUE(m.Build().ok());
  m.SetInput<T>(in, x);
  EXPECT_TRUE(m.Invoke().ok());
  if (out_shape != nullptr) *out_shape = m.GetOutputShape(out);
  return m.GetOutput<T>(out);
}

TEST(QuantizedMean, HalvesRoundToEvenAfterAddingTheZeroPoint) {
  // Same scale in and out, zp 171, n = 2: scale 0.5, bias 171 - 342 * 0.5 = 0,
  // so the outputs are 129 * 0.5 = 64.5 -> 64 and 315 * 0.5 = 157.5 -> 158
  // (half to even on the final value; rounding (sum - n * zp) * scale first,
  // -106.5 -> -106 and -13.5 -> -14, would give 65 and 157).
  const std::vector<uint8_t> x = {64, 65, 157, 158};
  Shape s;
  EXPECT_EQ(Reduce<uint8_t>(tflite::BuiltinOperator::MEAN, DataType::kUInt8, {2, 2}, x, {1}, false,
                            Quant(0.1f, 171), Quant(0.1f, 171), &s),
            (std::vector<uint8_t>{64, 158}));
  EXPECT_EQ(s, (Shape{2}));
}

TEST(QuantizedMean, SpatialMeanMatchesFloatWithinHalfStep) {
  // The tf2 MobileNetV2 head: [1, 7, 7, C] -> mean over H, W, different scales.
  std::mt19937 rng(3);
  std::uniform_int_distribution<int> d(-128, 127);
  const int C = 160;
  std::vector<int8_t> x(49 * C);
  for (auto& v : x) v = static_cast<int8_t>(d(rng));
  const float in_scale = 0.0235f, out_scale = 0.0113f;
  const int in_zp = -7, out_zp = 12;
  Shape s;
  const auto y = Reduce<int8_t>(tflite::BuiltinOperator::MEAN, DataType::kInt8, {1, 7, 7, C}, x, {1, 2}, true,
                                Quant(in_scale, in_zp), Quant(out_scale, out_zp), &s);
  EXPECT_EQ(s, (Shape{1, 1, 1, C}));
  for (int c = 0; c < C; ++c) {
    double sum = 0;
    for (int p = 0; p < 49; ++p) sum += x[p * C + c] - in_zp;
    const double want = std::min(127.0, std::max(-128.0, sum / 49 * in_scale / out_scale + out_zp));
    EXPECT_LE(std::fabs(y[c] - want), 0.5 + 1e-3) << c;
  }
}

}  // namespace
}  // namespace relite
