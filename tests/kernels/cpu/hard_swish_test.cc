#include <algorithm>
#include <cmath>
#include <vector>

#include <gtest/gtest.h>

#include "tests/kernels/cpu/elementwise_test_util.h"

namespace relite {
namespace {

using namespace relite::testing;  // NOLINT

const OpSpec kHardSwish{tflite::BuiltinOperator::HARD_SWISH, 1, tflite::BuiltinOptions::NONE, nullptr};

double Ref(double x) { return x * std::min(std::max(x + 3.0, 0.0), 6.0) / 6.0; }

TEST(HardSwishTest, MatchesReference) { CheckFloatUnary(kHardSwish, Ref, -8, 8, 86); }

TEST(HardSwishTest, Errors) { CheckFloatUnaryErrors(kHardSwish); }

}  // namespace
}  // namespace relite
