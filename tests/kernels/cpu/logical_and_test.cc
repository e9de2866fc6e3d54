#include <cstdint>
#include <vector>

#include <gtest/gtest.h>

#include "tests/kernels/cpu/elementwise_test_util.h"

namespace relite {
namespace {

using namespace relite::testing;  // NOLINT

const OpSpec kLogicalAnd{tflite::BuiltinOperator::LOGICAL_AND, 1, tflite::BuiltinOptions::LogicalAndOptions,
                         [](flatbuffers::FlatBufferBuilder& fbb) { return tflite::CreateLogicalAndOptions(fbb).Union(); }};

// bool tensors are one byte per element: uint8 0/1 here.
TEST(LogicalAndTest, BroadcastShapes) {
  CheckBroadcastPairs<uint8_t>(kLogicalAnd, DataType::kBool,
                               [](uint8_t a, uint8_t b) { return static_cast<uint8_t>(a && b); }, 0, 1, 60);
}

TEST(LogicalAndTest, TruthTable) {
  const auto r = RunBinary<uint8_t>(kLogicalAnd, DataType::kBool, {2, 2}, std::vector<uint8_t>{0, 0, 1, 1}, {2, 2},
                                    std::vector<uint8_t>{0, 1, 0, 1});
  ASSERT_TRUE(r.invoke.ok()) << r.invoke.ToString();
  EXPECT_EQ(r.out, (std::vector<uint8_t>{0, 0, 0, 1}));
}

TEST(LogicalAndTest, Threaded) {
  CheckThreaded<uint8_t>(kLogicalAnd, DataType::kBool, [](uint8_t a, uint8_t b) { return static_cast<uint8_t>(a && b); },
                         0, 1, 61);
}

TEST(LogicalAndTest, Errors) {
  CheckBinaryErrors(kLogicalAnd, DataType::kBool);
  const auto r = RunBinary<float>(kLogicalAnd, DataType::kFloat32, {3}, std::vector<float>{1, 0, 1}, {3},
                                  std::vector<float>{1, 1, 0});
  EXPECT_EQ(r.build.code(), StatusCode::kInvalidArgument) << "float: " << r.build.ToString();
}

}  // namespace
}  // namespace relite
