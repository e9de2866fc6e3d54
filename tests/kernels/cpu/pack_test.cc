#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "tests/testing/reference/shape_reference.h"
#include "tests/testing/single_op_model.h"

namespace relite {
namespace {

using testing::SingleOpModel;
namespace ref = testing::reference;

template <typename T>
void CheckPack(DataType dt, const std::vector<ref::Tensor<T>>& inputs, int axis, int threads = 1) {
  SCOPED_TRACE("shape " + ShapeToString(inputs[0].shape) + " axis " + std::to_string(axis));
  SingleOpModel m;
  std::vector<int> ids;
  for (const auto& t : inputs) ids.push_back(m.AddInput(dt, t.shape));
  const int out = m.AddOutput(dt);
  m.SetBuiltinOp(tflite::BuiltinOperator::PACK, 1, tflite::BuiltinOptions::PackOptions,
                 tflite::CreatePackOptions(m.fbb(), static_cast<int>(inputs.size()), axis).Union());
  const Status built = m.Build(threads);
  ASSERT_TRUE(built.ok()) << built.ToString();
  for (size_t i = 0; i < inputs.size(); ++i) m.SetInput<T>(ids[i], inputs[i].data);
  const Status run = m.Invoke();
  ASSERT_TRUE(run.ok()) << run.ToString();
  const int rank = static_cast<int>(inputs[0].shape.size());
  const ref::Tensor<T> expected = ref::Pack(inputs, axis < 0 ? axis + rank + 1 : axis);
  EXPECT_EQ(m.GetOutputShape(out), expected.shape);
  EXPECT_EQ(m.GetOutput<T>(out), expected.data);
}

template <typename T>
void RandomCases(DataType dt, bool is_bool, uint32_t seed) {
  std::mt19937 rng(seed);
  for (int iter = 0; iter < 50; ++iter) {
    const int rank = static_cast<int>(rng() % 4);
    const Shape shape = ref::RandomShape(rng, rank, 1, 4);
    const int axis = static_cast<int>(rng() % static_cast<uint32_t>(2 * rank + 2)) - (rank + 1);
    std::vector<ref::Tensor<T>> inputs;
    const int n = 1 + static_cast<int>(rng() % 4);
    for (int i = 0; i < n; ++i) inputs.push_back(ref::RandomTensor<T>(rng, shape, is_bool));
    CheckPack<T>(dt, inputs, axis);
  }
}

TEST(Pack, RandomFloat32) { RandomCases<float>(DataType::kFloat32, false, 1); }
TEST(Pack, RandomInt32) { RandomCases<int32_t>(DataType::kInt32, false, 2); }
TEST(Pack, RandomInt64) { RandomCases<int64_t>(DataType::kInt64, false, 3); }
TEST(Pack, RandomUInt8) { RandomCases<uint8_t>(DataType::kUInt8, false, 4); }
TEST(Pack, RandomInt8) { RandomCases<int8_t>(DataType::kInt8, false, 5); }
TEST(Pack, RandomInt16) { RandomCases<int16_t>(DataType::kInt16, false, 6); }
TEST(Pack, RandomBool) { RandomCases<uint8_t>(DataType::kBool, true, 7); }

TEST(Pack, LargeMultiThreaded) {
  std::mt19937 rng(8);
  std::vector<ref::Tensor<float>> inputs;
  for (int i = 0; i < 3; ++i) inputs.push_back(ref::RandomTensor<float>(rng, {64, 96, 40}));
  CheckPack<float>(DataType::kFloat32, inputs, 2, 4);
  CheckPack<float>(DataType::kFloat32, inputs, 0, 4);
}

Status BuildPack(const std::vector<Shape>& shapes, int values_count, int axis, DataType second = DataType::kFloat32) {
  SingleOpModel m;
  for (size_t i = 0; i < shapes.size(); ++i) m.AddInput(i == 1 ? second : DataType::kFloat32, shapes[i]);
  m.AddOutput(DataType::kFloat32);
  m.SetBuiltinOp(tflite::BuiltinOperator::PACK, 1, tflite::BuiltinOptions::PackOptions,
                 tflite::CreatePackOptions(m.fbb(), values_count, axis).Union());
  return m.Build();
}

TEST(Pack, Errors) {
  EXPECT_TRUE(BuildPack({{2, 3}, {2, 3}}, 2, 2).ok());
  EXPECT_EQ(BuildPack({{2, 3}, {2, 3}}, 2, 3).code(), StatusCode::kInvalidArgument);   // axis
  EXPECT_EQ(BuildPack({{2, 3}, {2, 3}}, 2, -4).code(), StatusCode::kInvalidArgument);  // axis
  EXPECT_EQ(BuildPack({{2, 3}, {3, 2}}, 2, 0).code(), StatusCode::kInvalidArgument);   // shapes
  EXPECT_EQ(BuildPack({{2, 3}, {2, 3}}, 3, 0).code(), StatusCode::kInvalidArgument);   // values_count
  EXPECT_EQ(BuildPack({{2, 3}, {2, 3}}, 2, 0, DataType::kInt32).code(), StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace relite
