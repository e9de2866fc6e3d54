#include <algorithm>
#include <cmath>
#include <vector>

#include <gtest/gtest.h>

#include "tests/kernels/cpu/elementwise_test_util.h"

namespace relite {
namespace {

using namespace relite::testing;  // NOLINT

const OpSpec kReluN1To1{tflite::BuiltinOperator::RELU_N1_TO_1, 1, tflite::BuiltinOptions::NONE, nullptr};

double Ref(double x) { return std::min(std::max(-1.0, x), 1.0); }

TEST(ReluN1To1Test, MatchesReference) { CheckFloatUnary(kReluN1To1, Ref, -3, 3, 85); }

TEST(ReluN1To1Test, Errors) { CheckFloatUnaryErrors(kReluN1To1); }

}  // namespace
}  // namespace relite
