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
StatusOr<std::pair<Shape, std::vector<T>>> RunSlice(DataType dt, const ref::Tensor<T>& input,
                                                    const std::vector<int>& begin, const std::vector<int>& size,
                                                    bool int64 = false, int threads = 1) {
  SingleOpModel m;
  const int in = m.AddInput(dt, input.shape);
  const Shape s = {static_cast<int32_t>(begin.size())};
  if (int64) {
    m.AddConstInput<int64_t>(DataType::kInt64, s, std::vector<int64_t>(begin.begin(), begin.end()));
    m.AddConstInput<int64_t>(DataType::kInt64, {static_cast<int32_t>(size.size())},
                             std::vector<int64_t>(size.begin(), size.end()));
  } else {
    m.AddConstInput<int32_t>(DataType::kInt32, s, std::vector<int32_t>(begin.begin(), begin.end()));
    m.AddConstInput<int32_t>(DataType::kInt32, {static_cast<int32_t>(size.size())},
                             std::vector<int32_t>(size.begin(), size.end()));
  }
  const int out = m.AddOutput(dt);
  m.SetBuiltinOp(tflite::BuiltinOperator::SLICE, 1, tflite::BuiltinOptions::SliceOptions,
                 tflite::CreateSliceOptions(m.fbb()).Union());
  RELITE_RETURN_IF_ERROR(m.Build(threads));
  m.SetInput<T>(in, input.data);
  RELITE_RETURN_IF_ERROR(m.Invoke());
  return std::make_pair(m.GetOutputShape(out), m.GetOutput<T>(out));
}

template <typename T>
void CheckSlice(DataType dt, const ref::Tensor<T>& input, const std::vector<int>& begin, const std::vector<int>& size,
                bool int64 = false, int threads = 1) {
  SCOPED_TRACE("input " + ShapeToString(input.shape));
  auto r = RunSlice<T>(dt, input, begin, size, int64, threads);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  std::vector<int> resolved = size;
  for (size_t d = 0; d < size.size(); ++d) {
    if (size[d] == -1) resolved[d] = input.shape[d] - begin[d];
  }
  const ref::Tensor<T> expected = ref::Slice(input, begin, resolved);
  EXPECT_EQ(r->first, expected.shape);
  EXPECT_EQ(r->second, expected.data);
}

template <typename T>
void RandomCases(DataType dt, bool is_bool, uint32_t seed) {
  std::mt19937 rng(seed);
  for (int iter = 0; iter < 80; ++iter) {
    const int rank = 1 + static_cast<int>(rng() % 6);
    const ref::Tensor<T> input = ref::RandomTensor<T>(rng, ref::RandomShape(rng, rank, 1, 6), is_bool);
    std::vector<int> begin, size;
    for (int d = 0; d < rank; ++d) {
      const int dim = input.shape[static_cast<size_t>(d)];
      const int b = static_cast<int>(rng() % static_cast<uint32_t>(dim + 1));
      begin.push_back(b);
      size.push_back(rng() % 4 == 0 ? -1 : static_cast<int>(rng() % static_cast<uint32_t>(dim - b + 1)));
    }
    CheckSlice<T>(dt, input, begin, size, rng() % 2 == 0);
  }
}

TEST(Slice, RandomFloat32) { RandomCases<float>(DataType::kFloat32, false, 1); }
TEST(Slice, RandomInt32) { RandomCases<int32_t>(DataType::kInt32, false, 2); }
TEST(Slice, RandomInt64) { RandomCases<int64_t>(DataType::kInt64, false, 3); }
TEST(Slice, RandomUInt8) { RandomCases<uint8_t>(DataType::kUInt8, false, 4); }
TEST(Slice, RandomInt8) { RandomCases<int8_t>(DataType::kInt8, false, 5); }
TEST(Slice, RandomInt16) { RandomCases<int16_t>(DataType::kInt16, false, 6); }
TEST(Slice, RandomBool) { RandomCases<uint8_t>(DataType::kBool, true, 7); }

TEST(Slice, LargeMultiThreaded) {
  std::mt19937 rng(8);
  const ref::Tensor<float> input = ref::RandomTensor<float>(rng, {6, 80, 80, 24});
  CheckSlice<float>(DataType::kFloat32, input, {1, 3, 5, 2}, {4, 70, -1, 20}, false, 4);
  CheckSlice<float>(DataType::kFloat32, input, {0, 0, 0, 0}, {-1, -1, -1, -1}, true, 4);
}

TEST(Slice, Errors) {
  const ref::Tensor<float> in{{2, 3}, std::vector<float>(6, 0.f)};
  auto code = [&](const std::vector<int>& b, const std::vector<int>& s) {
    return RunSlice<float>(DataType::kFloat32, in, b, s).status().code();
  };
  EXPECT_EQ(code({0, 0}, {2, 3}), StatusCode::kOk);
  EXPECT_EQ(code({0, 4}, {1, 0}), StatusCode::kInvalidArgument);   // begin past the end
  EXPECT_EQ(code({-1, 0}, {1, 1}), StatusCode::kInvalidArgument);  // negative begin
  EXPECT_EQ(code({1, 1}, {2, 1}), StatusCode::kInvalidArgument);   // past the end
  EXPECT_EQ(code({0, 0}, {1, -2}), StatusCode::kInvalidArgument);  // negative size
  EXPECT_EQ(code({0}, {1}), StatusCode::kInvalidArgument);         // wrong length
}

}  // namespace
}  // namespace relite
