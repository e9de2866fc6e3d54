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
StatusOr<std::vector<std::pair<Shape, std::vector<T>>>> RunSplitV(DataType dt, const ref::Tensor<T>& input,
                                                                  const std::vector<int>& sizes, int axis,
                                                                  bool int64 = false, int threads = 1) {
  SingleOpModel m;
  const int in = m.AddInput(dt, input.shape);
  const Shape s = {static_cast<int32_t>(sizes.size())};
  if (int64) {
    m.AddConstInput<int64_t>(DataType::kInt64, s, std::vector<int64_t>(sizes.begin(), sizes.end()));
    m.AddConstInput<int64_t>(DataType::kInt64, {}, {axis});
  } else {
    m.AddConstInput<int32_t>(DataType::kInt32, s, std::vector<int32_t>(sizes.begin(), sizes.end()));
    m.AddConstInput<int32_t>(DataType::kInt32, {1}, {axis});
  }
  std::vector<int> outs;
  for (size_t i = 0; i < sizes.size(); ++i) outs.push_back(m.AddOutput(dt));
  m.SetBuiltinOp(tflite::BuiltinOperator::SPLIT_V, 1, tflite::BuiltinOptions::SplitVOptions,
                 tflite::CreateSplitVOptions(m.fbb(), static_cast<int>(sizes.size())).Union());
  RELITE_RETURN_IF_ERROR(m.Build(threads));
  m.SetInput<T>(in, input.data);
  RELITE_RETURN_IF_ERROR(m.Invoke());
  std::vector<std::pair<Shape, std::vector<T>>> results;
  for (const int o : outs) results.emplace_back(m.GetOutputShape(o), m.GetOutput<T>(o));
  return results;
}

template <typename T>
void RandomCases(DataType dt, bool is_bool, uint32_t seed) {
  std::mt19937 rng(seed);
  for (int iter = 0; iter < 50; ++iter) {
    const int rank = 1 + static_cast<int>(rng() % 4);
    const Shape shape = ref::RandomShape(rng, rank, 1, 7);
    const int axis = static_cast<int>(rng() % static_cast<uint32_t>(2 * rank)) - rank;
    const int a = axis < 0 ? axis + rank : axis;
    // Random sizes (zeros allowed) summing to the dimension.
    std::vector<int> sizes;
    int left = shape[static_cast<size_t>(a)];
    while (left > 0 && sizes.size() < 4) {
      const int s = static_cast<int>(rng() % static_cast<uint32_t>(left + 1));
      sizes.push_back(s);
      left -= s;
    }
    sizes.push_back(left);
    std::vector<int> given = sizes;
    if (rng() % 2 == 0) given[rng() % given.size()] = -1;
    const ref::Tensor<T> input = ref::RandomTensor<T>(rng, shape, is_bool);
    SCOPED_TRACE("input " + ShapeToString(shape) + " axis " + std::to_string(axis));
    auto r = RunSplitV<T>(dt, input, given, axis, rng() % 2 == 0);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    const auto expected = ref::Split(input, a, sizes);
    for (size_t i = 0; i < sizes.size(); ++i) {
      EXPECT_EQ((*r)[i].first, expected[i].shape);
      EXPECT_EQ((*r)[i].second, expected[i].data);
    }
  }
}

TEST(SplitV, RandomFloat32) { RandomCases<float>(DataType::kFloat32, false, 1); }
TEST(SplitV, RandomInt32) { RandomCases<int32_t>(DataType::kInt32, false, 2); }
TEST(SplitV, RandomInt64) { RandomCases<int64_t>(DataType::kInt64, false, 3); }
TEST(SplitV, RandomUInt8) { RandomCases<uint8_t>(DataType::kUInt8, false, 4); }
TEST(SplitV, RandomInt16) { RandomCases<int16_t>(DataType::kInt16, false, 5); }
TEST(SplitV, RandomBool) { RandomCases<uint8_t>(DataType::kBool, true, 6); }

TEST(SplitV, LargeMultiThreaded) {
  std::mt19937 rng(7);
  const ref::Tensor<float> input = ref::RandomTensor<float>(rng, {6, 100, 80, 16});
  auto r = RunSplitV<float>(DataType::kFloat32, input, {30, -1, 10}, 1, false, 4);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  const auto expected = ref::Split(input, 1, {30, 60, 10});
  for (size_t i = 0; i < 3; ++i) EXPECT_EQ((*r)[i].second, expected[i].data);
}

TEST(SplitV, Errors) {
  const ref::Tensor<float> in{{2, 6}, std::vector<float>(12, 0.f)};
  auto code = [&](const std::vector<int>& sizes, int axis) {
    return RunSplitV<float>(DataType::kFloat32, in, sizes, axis).status().code();
  };
  EXPECT_EQ(code({2, 4}, 1), StatusCode::kOk);
  EXPECT_EQ(code({2, 3}, 1), StatusCode::kInvalidArgument);    // sum != dim
  EXPECT_EQ(code({-1, -1}, 1), StatusCode::kInvalidArgument);  // two -1
  EXPECT_EQ(code({7, -1}, 1), StatusCode::kInvalidArgument);   // -1 would be negative
  EXPECT_EQ(code({-2, 8}, 1), StatusCode::kInvalidArgument);   // negative
  EXPECT_EQ(code({1, 1}, 2), StatusCode::kInvalidArgument);    // axis
}

}  // namespace
}  // namespace relite
