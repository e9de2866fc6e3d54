// Quantized MAX_POOL_2D: XNNPACK's clamp bounds for uint8/int8, TFLite's
// for int16.
#include <cstdint>
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

TEST(QuantizedMaxPool2D, MaximumOfWindow) {
  const std::vector<int8_t> x = {-128, 5, 7, -3, 100, -100, 0, 1};
  EXPECT_EQ(Pool<int8_t>(tflite::BuiltinOperator::MAX_POOL_2D, DataType::kInt8, {1, 2, 2, 2}, x, 2, 2,
                         tflite::Padding::VALID, tflite::ActivationFunctionType::NONE, 0.1f, 0),
            (std::vector<int8_t>{100, 5}));
}

TEST(QuantizedMaxPool2D, ClampBoundsRoundLikeXnnpackFor8BitAndTfliteForInt16) {
  // scale 12, zp 10, RELU6: 6 / 12 = 0.5. XNNPACK (uint8/int8) rounds
  // 10 + 0.5 half to even -> 10; TFLite (int16) rounds 0.5 away -> 11.
  const std::vector<uint8_t> u = {0, 9, 10, 11, 12, 255};
  EXPECT_EQ(Pool<uint8_t>(tflite::BuiltinOperator::MAX_POOL_2D, DataType::kUInt8, {1, 1, 6, 1}, u, 1, 1,
                          tflite::Padding::VALID, tflite::ActivationFunctionType::RELU6, 12.f, 10),
            (std::vector<uint8_t>{10, 10, 10, 10, 10, 10}));
  // scale 2, zp 3, RELU_N1_TO_1: bounds 3 -+ 0.5 -> [2, 4] (half to even).
  const std::vector<int8_t> s = {-128, 2, 3, 4, 5, 127};
  EXPECT_EQ(Pool<int8_t>(tflite::BuiltinOperator::MAX_POOL_2D, DataType::kInt8, {1, 1, 6, 1}, s, 1, 1,
                         tflite::Padding::VALID, tflite::ActivationFunctionType::RELU_N1_TO_1, 2.f, 3),
            (std::vector<int8_t>{2, 2, 3, 4, 4, 4}));
  // int16 (zp 0): [0, round_half_away(0.5) = 1].
  const std::vector<int16_t> w = {-5, 0, 1, 2, 300, -300};
  EXPECT_EQ(Pool<int16_t>(tflite::BuiltinOperator::MAX_POOL_2D, DataType::kInt16, {1, 1, 6, 1}, w, 1, 1,
                          tflite::Padding::VALID, tflite::ActivationFunctionType::RELU6, 12.f, 0),
            (std::vector<int16_t>{0, 0, 1, 1, 1, 0}));
}

}  // namespace
}  // namespace relite
