#include <cmath>
#include <vector>

#include <gtest/gtest.h>

#include "tests/kernels/cpu/elementwise_test_util.h"

namespace relite {
namespace {

using namespace relite::testing;  // NOLINT

OpSpec LeakyRelu(float alpha) {
  return {tflite::BuiltinOperator::LEAKY_RELU, 1, tflite::BuiltinOptions::LeakyReluOptions,
          [alpha](flatbuffers::FlatBufferBuilder& fbb) { return tflite::CreateLeakyReluOptions(fbb, alpha).Union(); }};
}

TEST(LeakyReluTest, MatchesReference) {
  for (float alpha : {0.2f, 0.01f, 1.5f, -0.3f}) {
    CheckFloatUnary(LeakyRelu(alpha), [alpha](double x) { return x > 0 ? x : x * alpha; }, -10, 10, 90);
  }
}

TEST(LeakyReluTest, AbsentOptionsMeanAlphaZero) {
  const OpSpec spec{tflite::BuiltinOperator::LEAKY_RELU, 1, tflite::BuiltinOptions::NONE, nullptr};
  const auto r = RunUnary<float, float>(spec, DataType::kFloat32, DataType::kFloat32, {3}, std::vector<float>{-2, 0, 3});
  ASSERT_TRUE(r.invoke.ok()) << r.invoke.ToString();
  EXPECT_EQ(r.out, (std::vector<float>{0, 0, 3}));
}

TEST(LeakyReluTest, Errors) { CheckFloatUnaryErrors(LeakyRelu(0.2f)); }

}  // namespace
}  // namespace relite
