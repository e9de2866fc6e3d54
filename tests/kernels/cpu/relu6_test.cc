#include <algorithm>
#include <cmath>
#include <vector>

#include <gtest/gtest.h>

#include "tests/kernels/cpu/elementwise_test_util.h"

namespace relite {
namespace {

using namespace relite::testing;  // NOLINT

const OpSpec kRelu6{tflite::BuiltinOperator::RELU6, 1, tflite::BuiltinOptions::NONE, nullptr};

double Ref(double x) { return std::min(std::max(0.0, x), 6.0); }

TEST(Relu6Test, MatchesReference) { CheckFloatUnary(kRelu6, Ref, -10, 10, 84); }

TEST(Relu6Test, Errors) { CheckFloatUnaryErrors(kRelu6); }

}  // namespace
}  // namespace relite
