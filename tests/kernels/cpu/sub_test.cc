#include <cstdint>
#include <vector>

#include <gtest/gtest.h>

#include "tests/kernels/cpu/elementwise_test_util.h"

namespace relite {
namespace {

using namespace relite::testing;  // NOLINT
using Act = tflite::ActivationFunctionType;

OpSpec Sub(Act act = Act::NONE, int version = 1) {
  return {tflite::BuiltinOperator::SUB, version, tflite::BuiltinOptions::SubOptions,
          [act](flatbuffers::FlatBufferBuilder& fbb) { return tflite::CreateSubOptions(fbb, act).Union(); }};
}

TEST(SubTest, FloatBroadcastShapes) {
  // Sub is not commutative: the pairs put the broadcast side first and last.
  CheckBroadcastPairs<float>(Sub(), DataType::kFloat32, [](float a, float b) { return a - b; }, -10, 10, 11);
}

TEST(SubTest, FloatActivations) {
  for (Act act : {Act::RELU, Act::RELU_N1_TO_1, Act::RELU6}) {
    const int a = static_cast<int>(act);
    CheckBroadcastPairs<float>(Sub(act), DataType::kFloat32,
                               [a](float x, float y) { return reference::ApplyActivation(x - y, a); }, -8, 8, 12 + a);
  }
}

TEST(SubTest, Int32AndInt64) {
  CheckBroadcastPairs<int32_t>(Sub(), DataType::kInt32, [](int32_t a, int32_t b) { return a - b; }, -1000000,
                               1000000, 13);
  CheckBroadcastPairs<int32_t>(Sub(Act::RELU), DataType::kInt32,
                               [](int32_t a, int32_t b) { return reference::ApplyActivation(a - b, 1); }, -10, 10, 14);
  CheckBroadcastPairs<int64_t>(Sub(), DataType::kInt64, [](int64_t a, int64_t b) { return a - b; }, -(1LL << 40),
                               1LL << 40, 15);
}

TEST(SubTest, Threaded) {
  CheckThreaded<float>(Sub(), DataType::kFloat32, [](float a, float b) { return a - b; }, -5, 5, 16);
}

TEST(SubTest, Errors) {
  CheckBinaryErrors(Sub(), DataType::kFloat32);
  const auto r = RunBinary<int16_t>(Sub(Act::NONE, 3), DataType::kInt16, {3}, std::vector<int16_t>{1, 2, 3}, {3},
                                    std::vector<int16_t>{1, 2, 3});
  EXPECT_EQ(r.build.code(), StatusCode::kInvalidArgument) << "int16 without quantization: " << r.build.ToString();
}

}  // namespace
}  // namespace relite
