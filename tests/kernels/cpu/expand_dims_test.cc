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
StatusOr<std::pair<Shape, std::vector<T>>> RunExpandDims(DataType dt, const ref::Tensor<T>& input, int64_t axis,
                                                         DataType axis_type = DataType::kInt32,
                                                         const Shape& axis_shape = {}) {
  SingleOpModel m;
  const int in = m.AddInput(dt, input.shape);
  if (axis_type == DataType::kInt64) {
    m.AddConstInput<int64_t>(axis_type, axis_shape, {axis});
  } else {
    m.AddConstInput<int32_t>(axis_type, axis_shape, {static_cast<int32_t>(axis)});
  }
  const int out = m.AddOutput(dt);
  m.SetBuiltinOp(tflite::BuiltinOperator::EXPAND_DIMS, 1, tflite::BuiltinOptions::ExpandDimsOptions,
                 tflite::CreateExpandDimsOptions(m.fbb()).Union());
  RELITE_RETURN_IF_ERROR(m.Build());
  m.SetInput<T>(in, input.data);
  RELITE_RETURN_IF_ERROR(m.Invoke());
  return std::make_pair(m.GetOutputShape(out), m.GetOutput<T>(out));
}

template <typename T>
void RandomCases(DataType dt, bool is_bool, uint32_t seed) {
  std::mt19937 rng(seed);
  for (int iter = 0; iter < 40; ++iter) {
    const int rank = static_cast<int>(rng() % 5);
    const ref::Tensor<T> input = ref::RandomTensor<T>(rng, ref::RandomShape(rng, rank, 1, 4), is_bool);
    const int axis = static_cast<int>(rng() % (2 * rank + 2)) - (rank + 1);
    Shape expected = input.shape;
    expected.insert(expected.begin() + (axis < 0 ? axis + rank + 1 : axis), 1);
    SCOPED_TRACE("input " + ShapeToString(input.shape) + " axis " + std::to_string(axis));
    auto r = RunExpandDims<T>(dt, input, axis, rng() % 2 == 0 ? DataType::kInt32 : DataType::kInt64,
                              rng() % 2 == 0 ? Shape{} : Shape{1});
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    EXPECT_EQ(r->first, expected);
    EXPECT_EQ(r->second, input.data);
  }
}

TEST(ExpandDims, RandomFloat32) { RandomCases<float>(DataType::kFloat32, false, 1); }
TEST(ExpandDims, RandomInt32) { RandomCases<int32_t>(DataType::kInt32, false, 2); }
TEST(ExpandDims, RandomInt8) { RandomCases<int8_t>(DataType::kInt8, false, 3); }
TEST(ExpandDims, RandomBool) { RandomCases<uint8_t>(DataType::kBool, true, 4); }

TEST(ExpandDims, Errors) {
  const ref::Tensor<float> in{{2, 3}, std::vector<float>(6, 0.f)};
  EXPECT_EQ(RunExpandDims<float>(DataType::kFloat32, in, 3).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(RunExpandDims<float>(DataType::kFloat32, in, -4).status().code(), StatusCode::kInvalidArgument);
  EXPECT_TRUE(RunExpandDims<float>(DataType::kFloat32, in, -3).ok());
  EXPECT_TRUE(RunExpandDims<float>(DataType::kFloat32, in, 2).ok());
  EXPECT_EQ(RunExpandDims<float>(DataType::kFloat32, in, 0, DataType::kFloat32).status().code(),
            StatusCode::kInvalidArgument);
  {
    SingleOpModel m;  // runtime axis
    m.AddInput(DataType::kFloat32, {2});
    m.AddInput(DataType::kInt32, {});
    m.AddOutput(DataType::kFloat32);
    m.SetBuiltinOp(tflite::BuiltinOperator::EXPAND_DIMS, 1);
    ASSERT_TRUE(m.Build().ok());  // prepared at Invoke (dynamic shapes)
    m.SetInput<int32_t>(1, {0});
    ASSERT_TRUE(m.Invoke().ok());
    EXPECT_EQ(m.GetOutputShape(2), (Shape{1, 2}));
  }
}

}  // namespace
}  // namespace relite
