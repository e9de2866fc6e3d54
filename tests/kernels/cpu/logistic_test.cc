#include <algorithm>
#include <cmath>
#include <vector>

#include <gtest/gtest.h>

#include "tests/kernels/cpu/elementwise_test_util.h"

namespace relite {
namespace {

using namespace relite::testing;  // NOLINT

const OpSpec kLogistic{tflite::BuiltinOperator::LOGISTIC, 1, tflite::BuiltinOptions::NONE, nullptr};

double Ref(double x) { return 1.0 / (1.0 + std::exp(-x)); }

TEST(LogisticTest, MatchesReference) { CheckFloatUnary(kLogistic, Ref, -30, 30, 81); }

TEST(LogisticTest, Errors) { CheckFloatUnaryErrors(kLogistic); }

// Large |x| must not overflow into NaN: saturates to exactly 0 / 1.
TEST(LogisticTest, Saturates) {
  const auto r = RunUnary<float, float>(kLogistic, DataType::kFloat32, DataType::kFloat32, {4},
                                        std::vector<float>{-1000.0f, 1000.0f, -3e38f, 3e38f});
  ASSERT_TRUE(r.invoke.ok()) << r.invoke.ToString();
  EXPECT_EQ(r.out, (std::vector<float>{0.0f, 1.0f, 0.0f, 1.0f}));
}

}  // namespace
}  // namespace relite
