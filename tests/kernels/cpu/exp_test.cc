#include <algorithm>
#include <cmath>
#include <vector>

#include <gtest/gtest.h>

#include "tests/kernels/cpu/elementwise_test_util.h"

namespace relite {
namespace {

using namespace relite::testing;  // NOLINT

const OpSpec kExp{tflite::BuiltinOperator::EXP, 1, tflite::BuiltinOptions::NONE, nullptr};

double Ref(double x) { return std::exp(x); }

TEST(ExpTest, MatchesReference) { CheckFloatUnary(kExp, Ref, -90, 90, 80); }

TEST(ExpTest, Errors) { CheckFloatUnaryErrors(kExp); }

}  // namespace
}  // namespace relite
