#include <cstdint>
#include <limits>
#include <vector>

#include <gtest/gtest.h>

#include "tests/kernels/cpu/elementwise_test_util.h"

namespace relite {
namespace {

using namespace relite::testing;  // NOLINT
using Act = tflite::ActivationFunctionType;

OpSpec Add(Act act = Act::NONE, int version = 1) {
  return {tflite::BuiltinOperator::ADD, version, tflite::BuiltinOptions::AddOptions,
          [act](flatbuffers::FlatBufferBuilder& fbb) { return tflite::CreateAddOptions(fbb, act).Union(); }};
}

TEST(AddTest, FloatBroadcastShapes) {
  CheckBroadcastPairs<float>(Add(), DataType::kFloat32, [](float a, float b) { return a + b; }, -10, 10, 1);
}

TEST(AddTest, FloatActivations) {
  for (Act act : {Act::RELU, Act::RELU_N1_TO_1, Act::RELU6}) {
    const int a = static_cast<int>(act);
    CheckBroadcastPairs<float>(Add(act), DataType::kFloat32,
                               [a](float x, float y) { return reference::ApplyActivation(x + y, a); }, -8, 8, 2 + a);
  }
}

TEST(AddTest, Int32AndInt64) {
  CheckBroadcastPairs<int32_t>(Add(), DataType::kInt32, [](int32_t a, int32_t b) { return a + b; }, -1000000,
                               1000000, 3);
  CheckBroadcastPairs<int32_t>(Add(Act::RELU6), DataType::kInt32,
                               [](int32_t a, int32_t b) { return reference::ApplyActivation(a + b, 3); }, -10, 10, 4);
  CheckBroadcastPairs<int64_t>(Add(), DataType::kInt64, [](int64_t a, int64_t b) { return a + b; }, -(1LL << 40),
                               1LL << 40, 5);
}

TEST(AddTest, Int32WrapsOnOverflow) {
  const auto r = RunBinary<int32_t>(Add(), DataType::kInt32, {2}, std::vector<int32_t>{INT32_MAX, INT32_MIN}, {2},
                                    std::vector<int32_t>{1, -1});
  ASSERT_TRUE(r.invoke.ok());
  EXPECT_EQ(r.out, (std::vector<int32_t>{INT32_MIN, INT32_MAX}));
}

TEST(AddTest, Threaded) {
  CheckThreaded<float>(Add(Act::RELU6), DataType::kFloat32,
                       [](float a, float b) { return reference::ApplyActivation(a + b, 3); }, -5, 5, 6);
  CheckThreaded<int32_t>(Add(), DataType::kInt32, [](int32_t a, int32_t b) { return a + b; }, -100, 100, 7);
}

TEST(AddTest, NoOptionsTableMeansNoActivation) {
  OpSpec spec{tflite::BuiltinOperator::ADD, 1, tflite::BuiltinOptions::NONE, nullptr};
  const auto r = RunBinary<float>(spec, DataType::kFloat32, {3}, std::vector<float>{-5, 1, 7}, {}, std::vector<float>{-1});
  ASSERT_TRUE(r.invoke.ok()) << r.invoke.ToString();
  EXPECT_EQ(r.out, (std::vector<float>{-6, 0, 6}));
}

TEST(AddTest, Errors) {
  CheckBinaryErrors(Add(), DataType::kFloat32);
  {
    const auto r = RunBinary<float>(Add(Act::TANH), DataType::kFloat32, {3}, std::vector<float>{1, 2, 3}, {3},
                                    std::vector<float>{1, 2, 3});
    EXPECT_EQ(r.build.code(), StatusCode::kUnimplemented) << r.build.ToString();
  }
  {
    const auto r = RunBinary<uint8_t>(Add(Act::NONE, 2), DataType::kUInt8, {3}, std::vector<uint8_t>{1, 2, 3}, {3},
                                      std::vector<uint8_t>{1, 2, 3});
    // 8-bit arithmetic needs quantization parameters (the 8-bit kernel says which).
    EXPECT_EQ(r.build.code(), StatusCode::kInvalidArgument) << "uint8: " << r.build.ToString();
  }
  {
    const auto r = RunBinary<uint8_t>(Add(), DataType::kBool, {3}, std::vector<uint8_t>{1, 0, 1}, {3},
                                      std::vector<uint8_t>{1, 1, 0});
    EXPECT_EQ(r.build.code(), StatusCode::kInvalidArgument) << "bool: " << r.build.ToString();
  }
}

}  // namespace
}  // namespace relite
