#include <algorithm>
#include <cmath>
#include <vector>

#include <gtest/gtest.h>

#include "tests/kernels/cpu/elementwise_test_util.h"

namespace relite {
namespace {

using namespace relite::testing;  // NOLINT

const OpSpec kRelu{tflite::BuiltinOperator::RELU, 1, tflite::BuiltinOptions::NONE, nullptr};

double Ref(double x) { return std::max(0.0, x); }

TEST(ReluTest, MatchesReference) { CheckFloatUnary(kRelu, Ref, -10, 10, 83); }

TEST(ReluTest, Errors) { CheckFloatUnaryErrors(kRelu); }

}  // namespace
}  // namespace relite
