#include <algorithm>
#include <cmath>
#include <vector>

#include <gtest/gtest.h>

#include "tests/kernels/cpu/elementwise_test_util.h"

namespace relite {
namespace {

using namespace relite::testing;  // NOLINT

const OpSpec kTanh{tflite::BuiltinOperator::TANH, 1, tflite::BuiltinOptions::NONE, nullptr};

double Ref(double x) { return std::tanh(x); }

TEST(TanhTest, MatchesReference) { CheckFloatUnary(kTanh, Ref, -6, 6, 82); }

TEST(TanhTest, Errors) { CheckFloatUnaryErrors(kTanh); }

TEST(TanhTest, SmallArguments) {
  // Near 0 tanh(x) ~ x: relative accuracy must hold where 1 - e^-2x cancels.
  std::vector<float> x;
  for (float v = 1e-8f; v < 1.0f; v *= 1.37f) {
    x.push_back(v);
    x.push_back(-v);
  }
  const auto r = RunUnary<float, float>(kTanh, DataType::kFloat32, DataType::kFloat32, {static_cast<int32_t>(x.size())}, x);
  ASSERT_TRUE(r.invoke.ok()) << r.invoke.ToString();
  ExpectFloatsNear(r.out, reference::Unary<float>(x, [](float v) { return static_cast<float>(std::tanh(double{v})); }),
                   "small", 3e-7, 0);
}

}  // namespace
}  // namespace relite
