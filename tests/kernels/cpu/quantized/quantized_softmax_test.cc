// Quantized SOFTMAX: TFLite's optimized builtin kernel (float table of
// exponentials, sequential float sum).
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

template <typename In, typename Out>
std::vector<Out> Softmax(DataType in_type, DataType out_type, const Shape& shape, const std::vector<In>& x,
                         float in_scale, int in_zp, float beta, Quantization out_q) {
  SingleOpModel m;
  const int in = m.AddInput(in_type, shape, Quant(in_scale, in_zp));
  const int out = m.AddOutput(out_type, {}, out_q);
  m.SetBuiltinOp(tflite::BuiltinOperator::SOFTMAX, 1, tflite::BuiltinOptions::SoftmaxOptions,
                 tflite::CreateSoftmaxOptions(m.fbb(), beta).Union());
  EXPECT_TRUE(m.Build().ok());
  m.SetInput<In>(in, x);
  EXPECT_TRUE(m.Invoke().ok());
  return m.GetOutput<Out>(out);
}

TEST(QuantizedSoftmax, UniformRowsGiveOneOverDepth) {
  const std::vector<uint8_t> u(8, 77);
  EXPECT_EQ((Softmax<uint8_t, uint8_t>(DataType::kUInt8, DataType::kUInt8, {2, 4}, u, 0.1f, 0, 1.f,
                                       Quant(1.f / 256, 0))),
            std::vector<uint8_t>(8, 64));
  const std::vector<int8_t> s(8, -5);
  EXPECT_EQ((Softmax<int8_t, int8_t>(DataType::kInt8, DataType::kInt8, {2, 4}, s, 0.1f, 3, 1.f,
                                     Quant(1.f / 256, -128))),
            std::vector<int8_t>(8, -64));
  EXPECT_EQ((Softmax<int8_t, int16_t>(DataType::kInt8, DataType::kInt16, {1, 8}, s, 0.1f, 3, 1.f,
                                      Quant(1.f / 32768, 0))),
            std::vector<int16_t>(8, 4096));
  // A single dominant value saturates: p = 1 -> 256, clamped to 255 (uint8).
  const std::vector<uint8_t> one = {255, 0};
  EXPECT_EQ((Softmax<uint8_t, uint8_t>(DataType::kUInt8, DataType::kUInt8, {1, 2}, one, 1.f, 0, 1.f,
                                       Quant(1.f / 256, 0))),
            (std::vector<uint8_t>{255, 0}));
}

TEST(QuantizedSoftmax, Int16UsesTfliteFixedPointTables) {
  // Values checked against TFLite: a uniform row of 8 gives 1/8 = 4096 /
  // 32768; [1, 0] at scale 1/1000 gives e / (1 + e) = 23955.33 -> 23956 and
  // 8812.67 -> 8812 (the interpolated tables are not exactly rounded).
  const std::vector<int16_t> u(8, 1234);
  EXPECT_EQ((Softmax<int16_t, int16_t>(DataType::kInt16, DataType::kInt16, {1, 8}, u, 0.001f, 0, 1.f,
                                       Quant(1.f / 32768, 0))),
            std::vector<int16_t>(8, 4096));
  const std::vector<int16_t> two = {1000, 0};
  EXPECT_EQ((Softmax<int16_t, int16_t>(DataType::kInt16, DataType::kInt16, {1, 2}, two, 0.001f, 0, 1.f,
                                       Quant(1.f / 32768, 0))),
            (std::vector<int16_t>{23956, 8812}));
  // Within a few steps of the float softmax over a long row.
  std::mt19937 rng(2);
  std::uniform_int_distribution<int> d(-32768, 32767);
  std::vector<int16_t> x(300);
  for (auto& v : x) v = static_cast<int16_t>(d(rng));
  const float scale = 1.f / 8192;
  const auto y = Softmax<int16_t, int16_t>(DataType::kInt16, DataType::kInt16, {1, 300}, x, scale, 0, 1.f,
                                           Quant(1.f / 32768, 0));
  double mx = -1e9, sum = 0;
  for (int16_t v : x) mx = std::max<double>(mx, v);
  for (int16_t v : x) sum += std::exp(scale * (v - mx));
  for (size_t j = 0; j < x.size(); ++j) {
    const double want = std::exp(scale * (x[j] - mx)) / sum * 32768;
    EXPECT_LE(std::fabs(y[j] - want), 4.0) << j;
  }
}

TEST(QuantizedSoftmax, MatchesFloatWithinOneStep) {
  std::mt19937 rng(11);
  std::uniform_int_distribution<int> d(-128, 127);
  const int rows = 3, depth = 1001;
  std::vector<int8_t> x(rows * depth);
  for (auto& v : x) v = static_cast<int8_t>(d(rng));
  const float scale = 0.07f, beta = 1.5f;
  const auto y = Softmax<int8_t, int8_t>(DataType::kInt8, DataType::kInt8, {rows, depth}, x, scale, 10, beta,
                                         Quant(1.f / 256, -128));
  for (int r = 0; r < rows; ++r) {
    double mx = -1e9, sum = 0;
    for (int j = 0; j < depth; ++j) mx = std::max<double>(mx, x[r * depth + j]);
    for (int j = 0; j < depth; ++j) sum += std::exp(beta * scale * (x[r * depth + j] - mx));
    for (int j = 0; j < depth; ++j) {
      const double p = std::exp(beta * scale * (x[r * depth + j] - mx)) / sum;
      const double want = std::min(127.0, p * 256 - 128);
      EXPECT_LE(std::fabs(y[r * depth + j] - want), 0.5 + 1e-3) << r << " " << j;
    }
  }
}

}  // namespace
}  // namespace relite
