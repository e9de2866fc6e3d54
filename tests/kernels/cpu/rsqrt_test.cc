#include <algorithm>
#include <cmath>
#include <vector>

#include <gtest/gtest.h>

#include "tests/kernels/cpu/elementwise_test_util.h"

namespace relite {
namespace {

using namespace relite::testing;  // NOLINT

const OpSpec kRsqrt{tflite::BuiltinOperator::RSQRT, 1, tflite::BuiltinOptions::NONE, nullptr};

double Ref(double x) { return 1.0 / std::sqrt(x); }

TEST(RsqrtTest, MatchesReference) { CheckFloatUnary(kRsqrt, Ref, 0, 1000, 88); }

TEST(RsqrtTest, Errors) { CheckFloatUnaryErrors(kRsqrt); }

}  // namespace
}  // namespace relite
