#include <cstdint>
#include <vector>

#include <gtest/gtest.h>

#include "tests/kernels/cpu/elementwise_test_util.h"

namespace relite {
namespace {

using namespace relite::testing;  // NOLINT
using Act = tflite::ActivationFunctionType;

OpSpec Mul(Act act = Act::NONE, int version = 1) {
  return {tflite::BuiltinOperator::MUL, version, tflite::BuiltinOptions::MulOptions,
          [act](flatbuffers::FlatBufferBuilder& fbb) { return tflite::CreateMulOptions(fbb, act).Union(); }};
}

TEST(MulTest, FloatBroadcastShapes) {
  CheckBroadcastPairs<float>(Mul(), DataType::kFloat32, [](float a, float b) { return a * b; }, -10, 10, 21);
}

TEST(MulTest, FloatActivations) {
  for (Act act : {Act::RELU, Act::RELU_N1_TO_1, Act::RELU6}) {
    const int a = static_cast<int>(act);
    CheckBroadcastPairs<float>(Mul(act), DataType::kFloat32,
                               [a](float x, float y) { return reference::ApplyActivation(x * y, a); }, -4, 4, 22 + a);
  }
}

TEST(MulTest, Int32AndInt64) {
  CheckBroadcastPairs<int32_t>(Mul(), DataType::kInt32, [](int32_t a, int32_t b) { return a * b; }, -30000, 30000,
                               23);
  CheckBroadcastPairs<int32_t>(Mul(Act::RELU_N1_TO_1), DataType::kInt32,
                               [](int32_t a, int32_t b) { return reference::ApplyActivation(a * b, 2); }, -3, 3, 24);
  CheckBroadcastPairs<int64_t>(Mul(), DataType::kInt64, [](int64_t a, int64_t b) { return a * b; }, -(1LL << 30),
                               1LL << 30, 25);
}

TEST(MulTest, Int32WrapsOnOverflow) {
  const auto r = RunBinary<int32_t>(Mul(), DataType::kInt32, {2}, std::vector<int32_t>{65536, INT32_MIN}, {2},
                                    std::vector<int32_t>{65536, -1});
  ASSERT_TRUE(r.invoke.ok());
  EXPECT_EQ(r.out, (std::vector<int32_t>{0, INT32_MIN}));
}

TEST(MulTest, Threaded) {
  CheckThreaded<float>(Mul(Act::RELU), DataType::kFloat32,
                       [](float a, float b) { return reference::ApplyActivation(a * b, 1); }, -5, 5, 26);
  CheckThreaded<int64_t>(Mul(), DataType::kInt64, [](int64_t a, int64_t b) { return a * b; }, -1000, 1000, 27);
}

TEST(MulTest, Errors) {
  CheckBinaryErrors(Mul(), DataType::kFloat32);
  const auto r = RunBinary<float>(Mul(Act::SIGN_BIT), DataType::kFloat32, {3}, std::vector<float>{1, 2, 3}, {3},
                                  std::vector<float>{1, 2, 3});
  EXPECT_EQ(r.build.code(), StatusCode::kUnimplemented) << r.build.ToString();
}

}  // namespace
}  // namespace relite
