// Quantized LEAKY_RELU: XNNPACK's 8.8 fixed-point multipliers where the
// delegate takes the node, TFLite's Q31 multipliers elsewhere (int16).
#include <cstdint>
#include <vector>

#include <gtest/gtest.h>

#include "tests/kernels/cpu/quantized/quantized_elementwise_test_util.h"

namespace relite {
namespace {

using namespace relite::testing::qtest;  // NOLINT

template <typename T>
std::vector<T> RunLeaky(float alpha, const QTensor& in, const std::vector<T>& x, const QTensor& out) {
  const QOp op{tflite::BuiltinOperator::LEAKY_RELU, 2, tflite::BuiltinOptions::LeakyReluOptions,
               [alpha](flatbuffers::FlatBufferBuilder& fbb) { return tflite::CreateLeakyReluOptions(fbb, alpha).Union(); }};
  const auto r = RunQuantizedOp<T>(op, {in}, {Bytes(x)}, out);
  EXPECT_TRUE(r.build.ok()) << r.build.ToString();
  EXPECT_TRUE(r.invoke.ok()) << r.invoke.ToString();
  return r.out;
}

TEST(QuantizedLeakyReluTest, XnnpackMultipliers) {
  // Ratio 1, alpha 0.1: positive m = 256, negative m = round(25.6) = 26;
  // out = ((x - 5) * m + 256 * 5 + 128) >> 8.
  const QTensor t{DataType::kInt8, {6}, 0.5f, 5};
  const std::vector<int8_t> x = {5, 6, 127, 4, -128, -5};
  std::vector<int8_t> want;
  for (int8_t v : x) {
    const int32_t d = v - 5;
    want.push_back(static_cast<int8_t>((d * (d >= 0 ? 256 : 26) + 256 * 5 + 128) >> 8));
  }
  EXPECT_EQ(want, (std::vector<int8_t>{5, 6, 127, 5, -9, 4}));
  EXPECT_EQ(RunLeaky<int8_t>(0.1f, t, x, t), want);
}

TEST(QuantizedLeakyReluTest, Int16UsesTfliteArithmetic) {
  // alpha 0.5 = Q31 2^30 with shift 0: the doubling high multiply rounds
  // negative halves toward zero (its nudge is 1 - 2^30): -1.5 -> -1, -0.5 -> 0.
  const QTensor t{DataType::kInt16, {5}, 0.01f, 0};
  EXPECT_EQ(RunLeaky<int16_t>(0.5f, t, {-3, -1, 0, 7, -32768}, t), (std::vector<int16_t>{-1, 0, 0, 7, -16384}));
}

TEST(QuantizedLeakyReluTest, Uint8RequantizesBothSides) {
  // in s 1 zp 100, out s 2 zp 50, alpha 0.5: positive m = 128, negative 64.
  const QTensor in{DataType::kUInt8, {5}, 1.0f, 100};
  const QTensor out{DataType::kUInt8, {5}, 2.0f, 50};
  EXPECT_EQ(RunLeaky<uint8_t>(0.5f, in, {100, 103, 255, 96, 0}, out), (std::vector<uint8_t>{50, 52, 128, 49, 25}));
}

}  // namespace
}  // namespace relite
