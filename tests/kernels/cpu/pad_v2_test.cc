#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "tests/testing/reference/shape_reference.h"
#include "tests/testing/single_op_model.h"

namespace relite {
namespace {

using testing::SingleOpModel;
namespace ref = testing::reference;

// PADV2 with the constant value either a constant tensor or a runtime input.
template <typename T>
void CheckPadV2(DataType dt, const ref::Tensor<T>& input, const std::vector<std::pair<int, int>>& pads, T value,
                bool value_is_runtime, int threads = 1) {
  SCOPED_TRACE("input " + ShapeToString(input.shape));
  SingleOpModel m;
  const int in = m.AddInput(dt, input.shape);
  std::vector<int32_t> p;
  for (const auto& [b, a] : pads) p.insert(p.end(), {b, a});
  m.AddConstInput<int32_t>(DataType::kInt32, {static_cast<int32_t>(pads.size()), 2}, p);
  const int v = value_is_runtime ? m.AddInput(dt, {1}) : m.AddConstInput<T>(dt, {}, {value});
  const int out = m.AddOutput(dt);
  m.SetBuiltinOp(tflite::BuiltinOperator::PADV2, 1, tflite::BuiltinOptions::PadV2Options,
                 tflite::CreatePadV2Options(m.fbb()).Union());
  const Status built = m.Build(threads);
  ASSERT_TRUE(built.ok()) << built.ToString();
  m.SetInput<T>(in, input.data);
  if (value_is_runtime) m.SetInput<T>(v, {value});
  const Status run = m.Invoke();
  ASSERT_TRUE(run.ok()) << run.ToString();
  const ref::Tensor<T> expected = ref::Pad(input, pads, value);
  EXPECT_EQ(m.GetOutputShape(out), expected.shape);
  EXPECT_EQ(m.GetOutput<T>(out), expected.data);
}

template <typename T>
void RandomCases(DataType dt, uint32_t seed) {
  std::mt19937 rng(seed);
  for (int iter = 0; iter < 50; ++iter) {
    const int rank = 1 + static_cast<int>(rng() % 5);
    const ref::Tensor<T> input = ref::RandomTensor<T>(rng, ref::RandomShape(rng, rank, 1, 4));
    std::vector<std::pair<int, int>> pads;
    for (int d = 0; d < rank; ++d) pads.emplace_back(static_cast<int>(rng() % 3), static_cast<int>(rng() % 3));
    const T value = ref::RandomValues<T>(rng, 1)[0];
    CheckPadV2<T>(dt, input, pads, value, rng() % 2 == 0);
  }
}

TEST(PadV2, RandomFloat32) { RandomCases<float>(DataType::kFloat32, 1); }
TEST(PadV2, RandomInt32) { RandomCases<int32_t>(DataType::kInt32, 2); }
TEST(PadV2, RandomInt64) { RandomCases<int64_t>(DataType::kInt64, 3); }
TEST(PadV2, RandomUInt8) { RandomCases<uint8_t>(DataType::kUInt8, 4); }
TEST(PadV2, RandomInt16) { RandomCases<int16_t>(DataType::kInt16, 5); }

TEST(PadV2, LargeMultiThreaded) {
  std::mt19937 rng(6);
  CheckPadV2<float>(DataType::kFloat32, ref::RandomTensor<float>(rng, {2, 96, 96, 8}), {{0, 0}, {2, 2}, {1, 3}, {0, 1}},
                    -1.5f, false, 4);
}

TEST(PadV2, Errors) {
  auto build = [](DataType value_type, const Shape& value_shape) {
    SingleOpModel m;
    m.AddInput(DataType::kFloat32, {2, 2});
    m.AddConstInput<int32_t>(DataType::kInt32, {2, 2}, {1, 1, 1, 1});
    m.AddInput(value_type, value_shape);
    m.AddOutput(DataType::kFloat32);
    m.SetBuiltinOp(tflite::BuiltinOperator::PADV2, 1);
    return m.Build();
  };
  EXPECT_TRUE(build(DataType::kFloat32, {}).ok());
  EXPECT_TRUE(build(DataType::kFloat32, {1}).ok());
  EXPECT_EQ(build(DataType::kInt32, {}).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(build(DataType::kFloat32, {2}).code(), StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace relite
