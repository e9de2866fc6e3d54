// Quantized CONCATENATION: copies inputs whose parameters match the output's
// and requantizes the others with TFLite's float rescale (round half away).
#include <cstdint>
#include <vector>

#include <gtest/gtest.h>

#include "tests/kernels/cpu/quantized/quantized_elementwise_test_util.h"

namespace relite {
namespace {

using namespace relite::testing::qtest;  // NOLINT

QOp Concat(int axis) {
  return {tflite::BuiltinOperator::CONCATENATION, 1, tflite::BuiltinOptions::ConcatenationOptions,
          [axis](flatbuffers::FlatBufferBuilder& fbb) { return tflite::CreateConcatenationOptions(fbb, axis).Union(); }};
}

TEST(QuantizedConcatenationTest, RequantizesDifferingInputs) {
  // out s 0.5 zp 10. Input 0 matches (copied); input 1 s 0.25 zp 0: x * 0.5 + 10,
  // halves away from zero; input 2 s 2 zp 200: (x - 200) * 4 + 10, saturating.
  const QTensor a{DataType::kUInt8, {2, 1}, 0.5f, 10};
  const QTensor b{DataType::kUInt8, {2, 2}, 0.25f, 0};
  const QTensor c{DataType::kUInt8, {2, 1}, 2.0f, 200};
  const QTensor out{DataType::kUInt8, {2, 4}, 0.5f, 10};
  const auto r = RunQuantizedOp<uint8_t>(
      Concat(-1), {a, b, c},
      {Bytes(std::vector<uint8_t>{7, 250}), Bytes(std::vector<uint8_t>{1, 3, 5, 255}), Bytes(std::vector<uint8_t>{200, 0})},
      out);
  ASSERT_TRUE(r.build.ok()) << r.build.ToString();
  ASSERT_TRUE(r.invoke.ok()) << r.invoke.ToString();
  EXPECT_EQ(r.shape, (Shape{2, 4}));
  EXPECT_EQ(r.out, (std::vector<uint8_t>{7, 11, 12, 10, 250, 13, 138, 0}));
}

TEST(QuantizedConcatenationTest, Int8SameParametersIsACopy) {
  const QTensor t{DataType::kInt8, {1, 3}, 0.1f, -5};
  const QTensor out{DataType::kInt8, {2, 3}, 0.1f, -5};
  const auto r = RunQuantizedOp<int8_t>(Concat(0), {t, t},
                                        {Bytes(std::vector<int8_t>{-128, 0, 127}), Bytes(std::vector<int8_t>{1, 2, 3})}, out);
  ASSERT_TRUE(r.invoke.ok()) << r.invoke.ToString();
  EXPECT_EQ(r.out, (std::vector<int8_t>{-128, 0, 127, 1, 2, 3}));
}

}  // namespace
}  // namespace relite
