#include <cstdint>
#include <limits>
#include <vector>

#include <gtest/gtest.h>

#include "tests/kernels/cpu/elementwise_test_util.h"

namespace relite {
namespace {

using namespace relite::testing;  // NOLINT

const OpSpec kPrelu{tflite::BuiltinOperator::PRELU, 1, tflite::BuiltinOptions::NONE, nullptr};

float Ref(float x, float alpha) { return x >= 0.0f ? x : alpha * x; }

TEST(PreluTest, BroadcastShapes) {
  // Alpha usually broadcasts to the input, but any broadcastable pair is valid.
  CheckBroadcastPairs<float>(kPrelu, DataType::kFloat32, Ref, -5, 5, 70);
}

TEST(PreluTest, PerChannelAlpha) {
  std::mt19937 rng(71);
  for (const auto& [xs, as] : std::vector<std::pair<Shape, Shape>>{
           {{1, 8, 8, 3}, {3}}, {{2, 5, 7, 16}, {1, 1, 16}}, {{1, 4, 4, 5}, {4, 4, 5}}, {{3, 10}, {}}}) {
    const auto x = RandomValues<float>(static_cast<size_t>(Elements(xs)), rng, -3, 3);
    const auto alpha = RandomValues<float>(static_cast<size_t>(Elements(as)), rng, 0, 1);
    const auto r = RunBinary<float>(kPrelu, DataType::kFloat32, xs, x, as, alpha, 1, /*b_const=*/true);
    ASSERT_TRUE(r.invoke.ok()) << r.invoke.ToString();
    EXPECT_EQ(r.shape, xs);
    ExpectFloatsNear(r.out, reference::BroadcastBinary<float>(xs, x, as, alpha, Ref), ShapeStr(xs));
  }
}

TEST(PreluTest, SpecialValues) {
  constexpr float kInf = std::numeric_limits<float>::infinity();
  const auto r = RunBinary<float>(kPrelu, DataType::kFloat32, {6}, std::vector<float>{kInf, -kInf, 0.0f, -0.0f, 2.0f, -2.0f},
                                  {}, std::vector<float>{0.25f});
  ASSERT_TRUE(r.invoke.ok()) << r.invoke.ToString();
  EXPECT_EQ(r.out, (std::vector<float>{kInf, -kInf, 0.0f, 0.0f, 2.0f, -0.5f}));
}

TEST(PreluTest, Threaded) { CheckThreaded<float>(kPrelu, DataType::kFloat32, Ref, -5, 5, 72); }

TEST(PreluTest, Errors) {
  CheckBinaryErrors(kPrelu, DataType::kFloat32);
  const auto r = RunBinary<int32_t>(kPrelu, DataType::kInt32, {3}, std::vector<int32_t>{1, 0, 1}, {3},
                                    std::vector<int32_t>{1, 1, 0});
  EXPECT_EQ(r.build.code(), StatusCode::kInvalidArgument) << "int32: " << r.build.ToString();
  const auto q = RunBinary<int8_t>(kPrelu, DataType::kInt8, {3}, std::vector<int8_t>{1, 0, 1}, {3},
                                   std::vector<int8_t>{1, 1, 0});
  EXPECT_EQ(q.build.code(), StatusCode::kInvalidArgument) << "int8 without quantization: " << q.build.ToString();
}

}  // namespace
}  // namespace relite
