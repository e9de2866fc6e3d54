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
void CheckSplit(DataType dt, const ref::Tensor<T>& input, int axis, int num_splits, bool axis_int64 = false,
                int threads = 1) {
  SCOPED_TRACE("input " + ShapeToString(input.shape) + " axis " + std::to_string(axis) + " splits " +
               std::to_string(num_splits));
  SingleOpModel m;
  if (axis_int64) {
    m.AddConstInput<int64_t>(DataType::kInt64, {}, {axis});
  } else {
    m.AddConstInput<int32_t>(DataType::kInt32, {1}, {axis});
  }
  const int in = m.AddInput(dt, input.shape);
  std::vector<int> outs;
  for (int i = 0; i < num_splits; ++i) outs.push_back(m.AddOutput(dt));
  m.SetBuiltinOp(tflite::BuiltinOperator::SPLIT, 1, tflite::BuiltinOptions::SplitOptions,
                 tflite::CreateSplitOptions(m.fbb(), num_splits).Union());
  const Status built = m.Build(threads);
  ASSERT_TRUE(built.ok()) << built.ToString();
  m.SetInput<T>(in, input.data);
  const Status run = m.Invoke();
  ASSERT_TRUE(run.ok()) << run.ToString();
  const int rank = static_cast<int>(input.shape.size());
  const int a = axis < 0 ? axis + rank : axis;
  const int part = input.shape[static_cast<size_t>(a)] / num_splits;
  const auto expected = ref::Split(input, a, std::vector<int>(static_cast<size_t>(num_splits), part));
  for (int i = 0; i < num_splits; ++i) {
    EXPECT_EQ(m.GetOutputShape(outs[static_cast<size_t>(i)]), expected[static_cast<size_t>(i)].shape);
    EXPECT_EQ(m.GetOutput<T>(outs[static_cast<size_t>(i)]), expected[static_cast<size_t>(i)].data);
  }
}

template <typename T>
void RandomCases(DataType dt, bool is_bool, uint32_t seed) {
  std::mt19937 rng(seed);
  for (int iter = 0; iter < 50; ++iter) {
    const int rank = 1 + static_cast<int>(rng() % 4);
    Shape shape = ref::RandomShape(rng, rank, 1, 4);
    const int axis = static_cast<int>(rng() % static_cast<uint32_t>(2 * rank)) - rank;
    const int a = axis < 0 ? axis + rank : axis;
    const int num_splits = 1 + static_cast<int>(rng() % 4);
    shape[static_cast<size_t>(a)] *= num_splits;
    CheckSplit<T>(dt, ref::RandomTensor<T>(rng, shape, is_bool), axis, num_splits, rng() % 2 == 0);
  }
}

TEST(Split, RandomFloat32) { RandomCases<float>(DataType::kFloat32, false, 1); }
TEST(Split, RandomInt32) { RandomCases<int32_t>(DataType::kInt32, false, 2); }
TEST(Split, RandomInt64) { RandomCases<int64_t>(DataType::kInt64, false, 3); }
TEST(Split, RandomUInt8) { RandomCases<uint8_t>(DataType::kUInt8, false, 4); }
TEST(Split, RandomInt8) { RandomCases<int8_t>(DataType::kInt8, false, 5); }
TEST(Split, RandomInt16) { RandomCases<int16_t>(DataType::kInt16, false, 6); }
TEST(Split, RandomBool) { RandomCases<uint8_t>(DataType::kBool, true, 7); }

TEST(Split, RowPiecesOfEverySize) {
  // uint8 rows cut into pieces of 1 to 40 bytes: every size class of the
  // short-row copy and the library copy past it.
  std::mt19937 rng(12);
  for (int n = 1; n <= 40; ++n) {
    CheckSplit<uint8_t>(DataType::kUInt8, ref::RandomTensor<uint8_t>(rng, {2, 3, 3 * n}, false), 2, 3);
  }
}

TEST(Split, LargeMultiThreaded) {
  std::mt19937 rng(8);
  const ref::Tensor<float> input = ref::RandomTensor<float>(rng, {8, 64, 64, 24});
  CheckSplit<float>(DataType::kFloat32, input, 3, 3, false, 4);
  CheckSplit<float>(DataType::kFloat32, input, 0, 2, false, 4);
  CheckSplit<float>(DataType::kFloat32, input, -2, 4, false, 4);
}

Status BuildSplit(const Shape& shape, int axis, int num_splits, int num_outputs, bool axis_constant = true) {
  SingleOpModel m;
  if (axis_constant) {
    m.AddConstInput<int32_t>(DataType::kInt32, {}, {axis});
  } else {
    m.AddInput(DataType::kInt32, {});
  }
  m.AddInput(DataType::kFloat32, shape);
  for (int i = 0; i < num_outputs; ++i) m.AddOutput(DataType::kFloat32);
  m.SetBuiltinOp(tflite::BuiltinOperator::SPLIT, 1, tflite::BuiltinOptions::SplitOptions,
                 tflite::CreateSplitOptions(m.fbb(), num_splits).Union());
  return m.Build();
}

TEST(Split, Errors) {
  EXPECT_TRUE(BuildSplit({4, 6}, 1, 3, 3).ok());
  EXPECT_EQ(BuildSplit({4, 6}, 1, 4, 4).code(), StatusCode::kInvalidArgument);         // 6 % 4
  EXPECT_EQ(BuildSplit({4, 6}, 2, 2, 2).code(), StatusCode::kInvalidArgument);         // axis
  EXPECT_EQ(BuildSplit({4, 6}, -3, 2, 2).code(), StatusCode::kInvalidArgument);        // axis
  EXPECT_EQ(BuildSplit({4, 6}, 1, 3, 2).code(), StatusCode::kInvalidArgument);         // output count
  EXPECT_EQ(BuildSplit({4, 6}, 1, 0, 1).code(), StatusCode::kInvalidArgument);         // num_splits 0
  EXPECT_TRUE(BuildSplit({4, 6}, 1, 2, 2, false).ok());  // runtime axis: prepared at Invoke
}

}  // namespace
}  // namespace relite
