#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include <gtest/gtest.h>

#include "tests/kernels/cpu/elementwise_test_util.h"

namespace relite {
namespace {

using namespace relite::testing;  // NOLINT

const OpSpec kMaximum{tflite::BuiltinOperator::MAXIMUM, 1, tflite::BuiltinOptions::MaximumMinimumOptions,
                    [](flatbuffers::FlatBufferBuilder& fbb) { return tflite::CreateMaximumMinimumOptions(fbb).Union(); }};

template <typename T>
T Ref(T a, T b) {
  return a > b ? a : b;
}

TEST(MaximumTest, FloatBroadcastShapes) {
  CheckBroadcastPairs<float>(kMaximum, DataType::kFloat32, Ref<float>, -10, 10, 40);
}

TEST(MaximumTest, IntegerTypes) {
  CheckBroadcastPairs<int32_t>(kMaximum, DataType::kInt32, Ref<int32_t>, -1000000, 1000000, 40 + 1);
  CheckBroadcastPairs<int64_t>(kMaximum, DataType::kInt64, Ref<int64_t>, -(1LL << 40), 1LL << 40, 40 + 2);
  // Unquantized 8/16-bit integers compare as plain values.
  CheckBroadcastPairs<int8_t>(kMaximum, DataType::kInt8, Ref<int8_t>, -128, 127, 40 + 3);
  CheckBroadcastPairs<uint8_t>(kMaximum, DataType::kUInt8, Ref<uint8_t>, 0, 255, 40 + 4);
  CheckBroadcastPairs<int16_t>(kMaximum, DataType::kInt16, Ref<int16_t>, -32768, 32767, 40 + 5);
}

TEST(MaximumTest, QuantizedWithSharedParameters) {
  const Quantization q{{0.25f}, {3}, 0};
  SingleOpModel m;
  const int a = m.AddInput(DataType::kInt8, {4}, q);
  const int b = m.AddInput(DataType::kInt8, {}, q);
  const int out = m.AddOutput(DataType::kInt8, {}, q);
  m.SetBuiltinOp(tflite::BuiltinOperator::MAXIMUM, 2);
  ASSERT_TRUE(m.Build().ok());
  m.SetInput<int8_t>(a, {-100, 0, 5, 127});
  m.SetInput<int8_t>(b, {4});
  ASSERT_TRUE(m.Invoke().ok());
  const std::vector<int8_t> got = m.GetOutput<int8_t>(out);
  EXPECT_EQ(got, (std::vector<int8_t>{Ref<int8_t>(-100, 4), Ref<int8_t>(0, 4), Ref<int8_t>(5, 4), Ref<int8_t>(127, 4)}));
}

TEST(MaximumTest, QuantizedWithDifferentParametersIsUnsupported) {
  SingleOpModel m;
  m.AddInput(DataType::kInt8, {4}, Quantization{{0.25f}, {3}, 0});
  m.AddInput(DataType::kInt8, {4}, Quantization{{0.5f}, {3}, 0});
  m.AddOutput(DataType::kInt8, {}, Quantization{{0.25f}, {3}, 0});
  m.SetBuiltinOp(tflite::BuiltinOperator::MAXIMUM, 2);
  EXPECT_EQ(m.Build().code(), StatusCode::kUnimplemented);
}

TEST(MaximumTest, NanPropagates) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const auto r = RunBinary<float>(kMaximum, DataType::kFloat32, {4}, std::vector<float>{nan, 1.0f, nan, -2.0f}, {4},
                                  std::vector<float>{1.0f, nan, nan, 3.0f});
  ASSERT_TRUE(r.invoke.ok()) << r.invoke.ToString();
  EXPECT_TRUE(std::isnan(r.out[0]));
  EXPECT_TRUE(std::isnan(r.out[1]));
  EXPECT_TRUE(std::isnan(r.out[2]));
  EXPECT_EQ(r.out[3], Ref<float>(-2.0f, 3.0f));
}

TEST(MaximumTest, Threaded) {
  CheckThreaded<float>(kMaximum, DataType::kFloat32, Ref<float>, -5, 5, 40 + 6);
}

TEST(MaximumTest, Errors) {
  CheckBinaryErrors(kMaximum, DataType::kFloat32);
  const auto r = RunBinary<uint8_t>(kMaximum, DataType::kBool, {3}, std::vector<uint8_t>{1, 0, 1}, {3},
                                    std::vector<uint8_t>{1, 1, 0});
  EXPECT_EQ(r.build.code(), StatusCode::kInvalidArgument) << "bool: " << r.build.ToString();
}

}  // namespace
}  // namespace relite
