#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include <gtest/gtest.h>

#include "tests/kernels/cpu/elementwise_test_util.h"

namespace relite {
namespace {

using namespace relite::testing;  // NOLINT
using Act = tflite::ActivationFunctionType;

OpSpec Div(Act act = Act::NONE, int version = 1) {
  return {tflite::BuiltinOperator::DIV, version, tflite::BuiltinOptions::DivOptions,
          [act](flatbuffers::FlatBufferBuilder& fbb) { return tflite::CreateDivOptions(fbb, act).Union(); }};
}

TEST(DivTest, FloatBroadcastShapes) {
  CheckBroadcastPairs<float>(Div(), DataType::kFloat32, [](float a, float b) { return a / b; }, 0.5, 10, 31);
}

TEST(DivTest, FloatActivations) {
  for (Act act : {Act::RELU, Act::RELU_N1_TO_1, Act::RELU6}) {
    const int a = static_cast<int>(act);
    CheckBroadcastPairs<float>(Div(act), DataType::kFloat32,
                               [a](float x, float y) { return reference::ApplyActivation(x / y, a); }, -8, 8, 32 + a);
  }
}

TEST(DivTest, FloatByZeroIsIeee) {
  constexpr float kInf = std::numeric_limits<float>::infinity();
  const auto r = RunBinary<float>(Div(), DataType::kFloat32, {3}, std::vector<float>{1, -1, 0}, {}, std::vector<float>{0});
  ASSERT_TRUE(r.invoke.ok()) << r.invoke.ToString();
  EXPECT_EQ(r.out[0], kInf);
  EXPECT_EQ(r.out[1], -kInf);
  EXPECT_TRUE(std::isnan(r.out[2]));
}

TEST(DivTest, Int32TruncatesTowardZero) {
  std::mt19937 rng(34);
  for (const auto& [as, bs] : BroadcastShapePairs()) {
    auto a = RandomValues<int32_t>(static_cast<size_t>(Elements(as)), rng, -100000, 100000);
    auto b = RandomValues<int32_t>(static_cast<size_t>(Elements(bs)), rng, -50, 50);
    for (int32_t& v : b) v = v == 0 ? 7 : v;
    const auto r = RunBinary<int32_t>(Div(), DataType::kInt32, as, a, bs, b);
    ASSERT_TRUE(r.invoke.ok()) << r.invoke.ToString();
    ExpectValuesEqual(r.out, reference::BroadcastBinary<int32_t>(as, a, bs, b, [](int32_t x, int32_t y) { return x / y; }),
                      "a " + ShapeStr(as) + " b " + ShapeStr(bs));
  }
  const auto r = RunBinary<int32_t>(Div(Act::RELU6), DataType::kInt32, {4}, std::vector<int32_t>{-7, 7, 100, INT32_MIN},
                                    {4}, std::vector<int32_t>{2, 2, 3, -1});
  ASSERT_TRUE(r.invoke.ok()) << r.invoke.ToString();
  EXPECT_EQ(r.out, (std::vector<int32_t>{0, 3, 6, 0}));
  const auto wrap = RunBinary<int32_t>(Div(), DataType::kInt32, {2}, std::vector<int32_t>{INT32_MIN, INT32_MAX}, {},
                                       std::vector<int32_t>{-1});
  ASSERT_TRUE(wrap.invoke.ok()) << wrap.invoke.ToString();
  EXPECT_EQ(wrap.out, (std::vector<int32_t>{INT32_MIN, -INT32_MAX}));
}

TEST(DivTest, Int32ByZeroIsAnError) {
  const auto r = RunBinary<int32_t>(Div(), DataType::kInt32, {2, 3}, std::vector<int32_t>{1, 2, 3, 4, 5, 6}, {3},
                                    std::vector<int32_t>{1, 0, 2});
  ASSERT_TRUE(r.build.ok()) << r.build.ToString();
  EXPECT_FALSE(r.invoke.ok());
  // A constant zero divisor is found no later than the first Invoke.
  const auto folded = RunBinary<int32_t>(Div(), DataType::kInt32, {}, std::vector<int32_t>{5}, {}, std::vector<int32_t>{0},
                                         1, /*b_const=*/true);
  EXPECT_TRUE(!folded.build.ok() || !folded.invoke.ok());
}

TEST(DivTest, Threaded) {
  CheckThreaded<float>(Div(), DataType::kFloat32, [](float a, float b) { return a / b; }, 1, 5, 36);
}

TEST(DivTest, Errors) {
  CheckBinaryErrors(Div(), DataType::kFloat32);
  const auto r = RunBinary<int64_t>(Div(), DataType::kInt64, {3}, std::vector<int64_t>{1, 2, 3}, {3},
                                    std::vector<int64_t>{1, 2, 3});
  EXPECT_EQ(r.build.code(), StatusCode::kInvalidArgument) << "int64: " << r.build.ToString();
}

}  // namespace
}  // namespace relite
