// Quantized MUL: XNNPACK's fp32 requantization of (a - za) * (b - zb) where
// the delegate takes the node, TFLite's Q31 multiplier elsewhere.
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include "tests/kernels/cpu/quantized/quantized_elementwise_test_util.h"

namespace relite {
namespace {

using namespace relite::testing::qtest;  // NOLINT

QOp MulOp(tflite::ActivationFunctionType act = tflite::ActivationFunctionType::NONE) {
  return {tflite::BuiltinOperator::MUL, 2, tflite::BuiltinOptions::MulOptions,
          [act](flatbuffers::FlatBufferBuilder& fbb) { return tflite::CreateMulOptions(fbb, act).Union(); }};
}

template <typename T>
std::vector<T> RunMul(const QOp& op, const QTensor& a, const std::vector<T>& da, const QTensor& b,
                      const std::vector<T>& db, const QTensor& out) {
  const auto r = RunQuantizedOp<T>(op, {a, b}, {Bytes(da), Bytes(db)}, out);
  EXPECT_TRUE(r.build.ok()) << r.build.ToString();
  EXPECT_TRUE(r.invoke.ok()) << r.invoke.ToString();
  return r.out;
}

TEST(QuantizedMulTest, HalvesRoundToEven) {
  // scale product / out = 0.5: products 1, 3, 5, -1, -3 land on exact halves.
  const QTensor a{DataType::kInt8, {6}, 0.5f, 0};
  const QTensor b{DataType::kInt8, {6}, 1.0f, 0};
  const QTensor out{DataType::kInt8, {6}, 1.0f, 0};
  EXPECT_EQ(RunMul(MulOp(), a, std::vector<int8_t>{1, 3, 5, -1, -3, 127}, b, std::vector<int8_t>{1, 1, 1, 1, 1, 127}, out),
            (std::vector<int8_t>{0, 2, 2, 0, -2, 127}));
}

TEST(QuantizedMulTest, ZeroPointsBroadcastAndRelu) {
  // a: s 0.5 zp 10; b (per-channel vector): s 0.25 zp -2; out s 0.125 zp -20, RELU.
  // out = -20 + round((qa - 10) * (qb + 2) * 0.125 / 0.125), clamped at -20.
  const QTensor a{DataType::kInt8, {2, 2}, 0.5f, 10};
  const QTensor b{DataType::kInt8, {2}, 0.25f, -2};
  const QTensor out{DataType::kInt8, {2, 2}, 0.125f, -20};
  EXPECT_EQ(RunMul(MulOp(tflite::ActivationFunctionType::RELU), a, std::vector<int8_t>{12, 9, 10, 100}, b,
                   std::vector<int8_t>{1, 0}, out),
            (std::vector<int8_t>{-20 + 6, -20, -20, 127}));
}

TEST(QuantizedMulTest, MatchesFloatReferenceWithinOneStep) {
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> log_scale(-3.0f, 0.0f);
  for (int iter = 0; iter < 40; ++iter) {
    const bool u8 = iter % 2 == 0;
    const DataType t = u8 ? DataType::kUInt8 : DataType::kInt8;
    const int64_t zmin = u8 ? 0 : -128;
    const QTensor a{t, {33}, std::pow(10.0f, log_scale(rng)), zmin + static_cast<int64_t>(rng() % 256)};
    const QTensor b{t, {33}, std::pow(10.0f, log_scale(rng)), zmin + static_cast<int64_t>(rng() % 256)};
    // iter % 4 == 3: product ratios below 2^-16, which TFLite's builtin kernel handles.
    const float ratio = iter % 4 == 3 ? 1e-6f : std::pow(10.0f, log_scale(rng));
    const QTensor out{t, {33}, a.scale * b.scale / ratio, zmin + static_cast<int64_t>(rng() % 256)};
    const auto xa = RandomQ<uint8_t>(33, rng), xb = RandomQ<uint8_t>(33, rng);
    const auto y = RunMul(MulOp(), a, xa, b, xb, out);
    ASSERT_EQ(y.size(), 33u);
    for (size_t i = 0; i < y.size(); ++i) {
      auto val = [&](uint8_t raw) { return u8 ? static_cast<double>(raw) : static_cast<double>(static_cast<int8_t>(raw)); };
      const double real = a.scale * (val(xa[i]) - a.zero_point) * b.scale * (val(xb[i]) - b.zero_point);
      const double want = std::min<double>(zmin + 255, std::max<double>(zmin, std::round(real / out.scale) + out.zero_point));
      ASSERT_LE(std::fabs(val(y[i]) - want), 1.0) << iter << " " << i;
    }
  }
}

}  // namespace
}  // namespace relite
