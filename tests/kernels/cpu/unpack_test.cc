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
void CheckUnpack(DataType dt, const ref::Tensor<T>& input, int axis, int threads = 1) {
  SCOPED_TRACE("input " + ShapeToString(input.shape) + " axis " + std::to_string(axis));
  const int rank = static_cast<int>(input.shape.size());
  const int a = axis < 0 ? axis + rank : axis;
  const int num = input.shape[static_cast<size_t>(a)];
  SingleOpModel m;
  const int in = m.AddInput(dt, input.shape);
  std::vector<int> outs;
  for (int i = 0; i < num; ++i) outs.push_back(m.AddOutput(dt));
  m.SetBuiltinOp(tflite::BuiltinOperator::UNPACK, 1, tflite::BuiltinOptions::UnpackOptions,
                 tflite::CreateUnpackOptions(m.fbb(), num, axis).Union());
  const Status built = m.Build(threads);
  ASSERT_TRUE(built.ok()) << built.ToString();
  m.SetInput<T>(in, input.data);
  const Status run = m.Invoke();
  ASSERT_TRUE(run.ok()) << run.ToString();
  const auto expected = ref::Unpack(input, a);
  for (int i = 0; i < num; ++i) {
    EXPECT_EQ(m.GetOutputShape(outs[static_cast<size_t>(i)]), expected[static_cast<size_t>(i)].shape);
    EXPECT_EQ(m.GetOutput<T>(outs[static_cast<size_t>(i)]), expected[static_cast<size_t>(i)].data);
  }
}

template <typename T>
void RandomCases(DataType dt, bool is_bool, uint32_t seed) {
  std::mt19937 rng(seed);
  for (int iter = 0; iter < 50; ++iter) {
    const int rank = 1 + static_cast<int>(rng() % 4);
    const int axis = static_cast<int>(rng() % static_cast<uint32_t>(2 * rank)) - rank;
    CheckUnpack<T>(dt, ref::RandomTensor<T>(rng, ref::RandomShape(rng, rank, 1, 4), is_bool), axis);
  }
}

TEST(Unpack, RandomFloat32) { RandomCases<float>(DataType::kFloat32, false, 1); }
TEST(Unpack, RandomInt32) { RandomCases<int32_t>(DataType::kInt32, false, 2); }
TEST(Unpack, RandomInt64) { RandomCases<int64_t>(DataType::kInt64, false, 3); }
TEST(Unpack, RandomUInt8) { RandomCases<uint8_t>(DataType::kUInt8, false, 4); }
TEST(Unpack, RandomInt8) { RandomCases<int8_t>(DataType::kInt8, false, 5); }
TEST(Unpack, RandomInt16) { RandomCases<int16_t>(DataType::kInt16, false, 6); }
TEST(Unpack, RandomBool) { RandomCases<uint8_t>(DataType::kBool, true, 7); }

TEST(Unpack, LargeMultiThreaded) {
  std::mt19937 rng(8);
  CheckUnpack<float>(DataType::kFloat32, ref::RandomTensor<float>(rng, {128, 3, 900}), 1, 4);
  CheckUnpack<float>(DataType::kFloat32, ref::RandomTensor<float>(rng, {2, 300, 400}), 0, 4);
}

Status BuildUnpack(const Shape& shape, int num, int axis, int outputs) {
  SingleOpModel m;
  m.AddInput(DataType::kFloat32, shape);
  for (int i = 0; i < outputs; ++i) m.AddOutput(DataType::kFloat32);
  m.SetBuiltinOp(tflite::BuiltinOperator::UNPACK, 1, tflite::BuiltinOptions::UnpackOptions,
                 tflite::CreateUnpackOptions(m.fbb(), num, axis).Union());
  return m.Build();
}

TEST(Unpack, Errors) {
  EXPECT_TRUE(BuildUnpack({2, 3}, 3, 1, 3).ok());
  EXPECT_TRUE(BuildUnpack({2, 3}, 0, -1, 3).ok());  // num 0: taken from the shape
  EXPECT_EQ(BuildUnpack({2, 3}, 2, 1, 2).code(), StatusCode::kInvalidArgument);  // num != dim
  EXPECT_EQ(BuildUnpack({2, 3}, 3, 1, 2).code(), StatusCode::kInvalidArgument);  // outputs != dim
  EXPECT_EQ(BuildUnpack({2, 3}, 3, 2, 3).code(), StatusCode::kInvalidArgument);  // axis
  EXPECT_EQ(BuildUnpack({}, 1, 0, 1).code(), StatusCode::kInvalidArgument);      // scalar
}

}  // namespace
}  // namespace relite
