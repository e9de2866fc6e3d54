// Quantized PRELU (TFLite builtin arithmetic, alpha broadcast per channel).
#include <cstdint>
#include <vector>

#include <gtest/gtest.h>

#include "tests/kernels/cpu/quantized/quantized_elementwise_test_util.h"

namespace relite {
namespace {

using namespace relite::testing::qtest;  // NOLINT

TEST(QuantizedPreluTest, PerChannelAlpha) {
  // in s 0.5 zp 0; alpha s 0.25 zp 0 = {1, 2} -> 0.25, 0.5; out s 0.5 zp 0.
  // Negative side multiplier 0.5 * 0.25 / 0.5 = 0.25 on d * q_alpha.
  const QTensor in{DataType::kInt8, {1, 2, 2}, 0.5f, 0};
  const QTensor alpha{DataType::kInt8, {2}, 0.25f, 0};
  const QTensor out{DataType::kInt8, {1, 2, 2}, 0.5f, 0};
  const auto r = RunQuantizedOp<int8_t>(QOp{tflite::BuiltinOperator::PRELU, 1}, {in, alpha},
                                        {Bytes(std::vector<int8_t>{4, -4, -6, -7}), Bytes(std::vector<int8_t>{1, 2})}, out,
                                        {false, true});
  ASSERT_TRUE(r.build.ok()) << r.build.ToString();
  ASSERT_TRUE(r.invoke.ok()) << r.invoke.ToString();
  // 4 -> 4; -4 * 2 * 0.25 = -2; -6 * 1 * 0.25 = -1.5 -> -2 (away); -7 * 2 * 0.25 = -3.5 -> -4.
  EXPECT_EQ(r.out, (std::vector<int8_t>{4, -2, -2, -4}));
}

TEST(QuantizedPreluTest, Uint8WithZeroPoints) {
  const QTensor in{DataType::kUInt8, {3}, 1.0f, 128};
  const QTensor alpha{DataType::kUInt8, {1}, 0.5f, 10};
  const QTensor out{DataType::kUInt8, {3}, 1.0f, 128};
  const auto r = RunQuantizedOp<uint8_t>(QOp{tflite::BuiltinOperator::PRELU, 1}, {in, alpha},
                                         {Bytes(std::vector<uint8_t>{200, 120, 0}), Bytes(std::vector<uint8_t>{11})}, out,
                                         {false, true});
  ASSERT_TRUE(r.invoke.ok()) << r.invoke.ToString();
  // alpha real 0.5: -8 -> -4, -128 -> -64.
  EXPECT_EQ(r.out, (std::vector<uint8_t>{200, 124, 64}));
}

}  // namespace
}  // namespace relite
