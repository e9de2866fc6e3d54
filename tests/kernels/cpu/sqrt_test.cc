#include <algorithm>
#include <cmath>
#include <vector>

#include <gtest/gtest.h>

#include "tests/kernels/cpu/elementwise_test_util.h"

namespace relite {
namespace {

using namespace relite::testing;  // NOLINT

const OpSpec kSqrt{tflite::BuiltinOperator::SQRT, 1, tflite::BuiltinOptions::NONE, nullptr};

double Ref(double x) { return std::sqrt(x); }

TEST(SqrtTest, MatchesReference) { CheckFloatUnary(kSqrt, Ref, 0, 1000, 87); }

TEST(SqrtTest, Errors) { CheckFloatUnaryErrors(kSqrt); }

}  // namespace
}  // namespace relite
