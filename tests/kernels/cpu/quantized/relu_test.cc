// Quantized RELU, RELU6 and RELU_N1_TO_1 (TFLite builtin arithmetic):
// requantize with a Q31 multiplier, clamp at zp + round_half_away(bound / scale).
#include <cstdint>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "tests/kernels/cpu/quantized/quantized_elementwise_test_util.h"

namespace relite {
namespace {

using namespace relite::testing::qtest;  // NOLINT

template <typename T>
std::vector<T> RunClamp(tflite::BuiltinOperator op, const QTensor& in, const std::vector<T>& x, const QTensor& out) {
  const auto r = RunQuantizedOp<T>(QOp{op, 1}, {in}, {Bytes(x)}, out);
  EXPECT_TRUE(r.build.ok()) << r.build.ToString();
  EXPECT_TRUE(r.invoke.ok()) << r.invoke.ToString();
  return r.out;
}

TEST(QuantizedReluTest, SameParametersClampAtTheZeroPoint) {
  const QTensor t{DataType::kUInt8, {5}, 0.1f, 30};
  EXPECT_EQ(RunClamp<uint8_t>(tflite::BuiltinOperator::RELU, t, {0, 29, 30, 31, 255}, t),
            (std::vector<uint8_t>{30, 30, 30, 31, 255}));
}

TEST(QuantizedReluTest, Relu6AndReluN1To1Bounds) {
  // scale 0.25, zp -8: 6 -> 24 - 8 = 16, -1 -> -12, 1 -> -4.
  const QTensor t{DataType::kInt8, {6}, 0.25f, -8};
  const std::vector<int8_t> x = {-128, -12, -8, 0, 16, 127};
  EXPECT_EQ(RunClamp<int8_t>(tflite::BuiltinOperator::RELU6, t, x, t), (std::vector<int8_t>{-8, -8, -8, 0, 16, 16}));
  EXPECT_EQ(RunClamp<int8_t>(tflite::BuiltinOperator::RELU_N1_TO_1, t, x, t),
            (std::vector<int8_t>{-12, -12, -8, -4, -4, -4}));
}

TEST(QuantizedReluTest, RequantizesWhenParametersDiffer) {
  // in s 0.5 zp 0 -> out s 0.25 zp 3: (x * 2) + 3, RELU clamps at 3.
  const QTensor in{DataType::kInt8, {5}, 0.5f, 0};
  const QTensor out{DataType::kInt8, {5}, 0.25f, 3};
  EXPECT_EQ(RunClamp<int8_t>(tflite::BuiltinOperator::RELU, in, {-5, 0, 1, 50, 100}, out),
            (std::vector<int8_t>{3, 3, 5, 103, 127}));
  // Halving: 0.5 * x rounds half away from zero: 1 -> 1, 3 -> 2.
  EXPECT_EQ(RunClamp<int8_t>(tflite::BuiltinOperator::RELU, out, {3, 4, 5, 6, 7}, in),
            (std::vector<int8_t>{0, 1, 1, 2, 2}));
}

TEST(QuantizedReluTest, Int16NeedsZeroPointZero) {
  const QTensor t{DataType::kInt16, {3}, 0.001f, 0};
  EXPECT_EQ(RunClamp<int16_t>(tflite::BuiltinOperator::RELU6, t, {-5, 100, 32000}, t), (std::vector<int16_t>{0, 100, 6000}));
  const QTensor bad{DataType::kInt16, {3}, 0.001f, 4};
  const auto r = RunQuantizedOp<int16_t>(QOp{tflite::BuiltinOperator::RELU, 1}, {bad}, {Bytes(std::vector<int16_t>{1, 2, 3})}, bad);
  EXPECT_FALSE(r.build.ok() && r.invoke.ok());
}

TEST(QuantizedReluTest, ReluN1To1RejectsInt16LikeTflite) {
  const QTensor t{DataType::kInt16, {3}, 0.001f, 0};
  const auto r = RunQuantizedOp<int16_t>(QOp{tflite::BuiltinOperator::RELU_N1_TO_1, 1}, {t},
                                         {Bytes(std::vector<int16_t>{1, 2, 3})}, t);
  ASSERT_FALSE(r.build.ok());
  EXPECT_NE(r.build.ToString().find("int16"), std::string::npos) << r.build.ToString();
}

}  // namespace
}  // namespace relite
