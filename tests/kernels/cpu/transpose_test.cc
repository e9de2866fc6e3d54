#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <random>
#include <vector>

#include "tests/testing/reference/shape_reference.h"
#include "tests/testing/single_op_model.h"

namespace relite {
namespace {

using testing::SingleOpModel;
namespace ref = testing::reference;

template <typename T>
void CheckTranspose(DataType dt, const ref::Tensor<T>& input, const std::vector<int>& perm, bool perm_int64 = false,
                    int threads = 1) {
  std::string perm_text;
  for (const int p : perm) perm_text += std::to_string(p) + " ";
  SCOPED_TRACE("input " + ShapeToString(input.shape) + " perm " + perm_text);
  SingleOpModel m;
  const int in = m.AddInput(dt, input.shape);
  const Shape perm_shape = {static_cast<int32_t>(perm.size())};
  if (perm_int64) {
    m.AddConstInput<int64_t>(DataType::kInt64, perm_shape, std::vector<int64_t>(perm.begin(), perm.end()));
  } else {
    m.AddConstInput<int32_t>(DataType::kInt32, perm_shape, std::vector<int32_t>(perm.begin(), perm.end()));
  }
  const int out = m.AddOutput(dt);
  m.SetBuiltinOp(tflite::BuiltinOperator::TRANSPOSE, 1, tflite::BuiltinOptions::TransposeOptions,
                 tflite::CreateTransposeOptions(m.fbb()).Union());
  const Status built = m.Build(threads);
  ASSERT_TRUE(built.ok()) << built.ToString();
  m.SetInput<T>(in, input.data);
  const Status run = m.Invoke();
  ASSERT_TRUE(run.ok()) << run.ToString();
  const ref::Tensor<T> expected = ref::Transpose(input, perm);
  EXPECT_EQ(m.GetOutputShape(out), expected.shape);
  EXPECT_EQ(m.GetOutput<T>(out), expected.data);
}

template <typename T>
void RandomCases(DataType dt, bool is_bool, uint32_t seed) {
  std::mt19937 rng(seed);
  for (int iter = 0; iter < 80; ++iter) {
    const int rank = 1 + static_cast<int>(rng() % 6);
    const ref::Tensor<T> input = ref::RandomTensor<T>(rng, ref::RandomShape(rng, rank, 1, 5), is_bool);
    std::vector<int> perm(static_cast<size_t>(rank));
    std::iota(perm.begin(), perm.end(), 0);
    std::shuffle(perm.begin(), perm.end(), rng);
    CheckTranspose<T>(dt, input, perm, rng() % 2 == 0);
  }
}

TEST(Transpose, RandomFloat32) { RandomCases<float>(DataType::kFloat32, false, 1); }
TEST(Transpose, RandomInt32) { RandomCases<int32_t>(DataType::kInt32, false, 2); }
TEST(Transpose, RandomInt64) { RandomCases<int64_t>(DataType::kInt64, false, 3); }
TEST(Transpose, RandomUInt8) { RandomCases<uint8_t>(DataType::kUInt8, false, 4); }
TEST(Transpose, RandomInt8) { RandomCases<int8_t>(DataType::kInt8, false, 5); }
TEST(Transpose, RandomInt16) { RandomCases<int16_t>(DataType::kInt16, false, 6); }
TEST(Transpose, RandomBool) { RandomCases<uint8_t>(DataType::kBool, true, 7); }

// Shapes that reach the tiled 2-D path with full 8x8 blocks and ragged edges.
template <typename T>
void TiledCases(DataType dt, uint32_t seed) {
  std::mt19937 rng(seed);
  CheckTranspose<T>(dt, ref::RandomTensor<T>(rng, {67, 45}), {1, 0});
  CheckTranspose<T>(dt, ref::RandomTensor<T>(rng, {64, 40}), {1, 0});
  CheckTranspose<T>(dt, ref::RandomTensor<T>(rng, {3, 37, 41, 5}), {0, 3, 1, 2});
  CheckTranspose<T>(dt, ref::RandomTensor<T>(rng, {2, 9, 11, 17}), {0, 2, 3, 1});
  CheckTranspose<T>(dt, ref::RandomTensor<T>(rng, {5, 16, 3, 24}), {3, 1, 2, 0});
  CheckTranspose<T>(dt, ref::RandomTensor<T>(rng, {4, 1, 33, 1, 9}), {4, 3, 2, 1, 0});
}

TEST(Transpose, TiledFloat32) { TiledCases<float>(DataType::kFloat32, 8); }
TEST(Transpose, TiledInt8) { TiledCases<int8_t>(DataType::kInt8, 9); }
TEST(Transpose, TiledInt16) { TiledCases<int16_t>(DataType::kInt16, 10); }
TEST(Transpose, TiledInt64) { TiledCases<int64_t>(DataType::kInt64, 11); }

TEST(Transpose, LargeMultiThreaded) {
  std::mt19937 rng(12);
  const ref::Tensor<float> nhwc = ref::RandomTensor<float>(rng, {4, 56, 60, 32});
  CheckTranspose<float>(DataType::kFloat32, nhwc, {0, 3, 1, 2}, false, 4);
  CheckTranspose<float>(DataType::kFloat32, nhwc, {0, 2, 1, 3}, false, 4);
  CheckTranspose<float>(DataType::kFloat32, ref::RandomTensor<float>(rng, {300, 500}), {1, 0}, false, 4);
  CheckTranspose<uint8_t>(DataType::kUInt8, ref::RandomTensor<uint8_t>(rng, {2, 300, 700}), {0, 2, 1}, false, 4);
}

Status BuildTranspose(const Shape& shape, const std::vector<int32_t>& perm, bool constant = true) {
  SingleOpModel m;
  m.AddInput(DataType::kFloat32, shape);
  if (constant) {
    m.AddConstInput<int32_t>(DataType::kInt32, {static_cast<int32_t>(perm.size())}, perm);
  } else {
    m.AddInput(DataType::kInt32, {static_cast<int32_t>(perm.size())});
  }
  m.AddOutput(DataType::kFloat32);
  m.SetBuiltinOp(tflite::BuiltinOperator::TRANSPOSE, 1);
  return m.Build();
}

TEST(Transpose, Errors) {
  EXPECT_TRUE(BuildTranspose({2, 3, 4}, {2, 0, 1}).ok());
  EXPECT_EQ(BuildTranspose({2, 3, 4}, {1, 0}).code(), StatusCode::kInvalidArgument);        // wrong length
  EXPECT_EQ(BuildTranspose({2, 3, 4}, {0, 1, 1}).code(), StatusCode::kInvalidArgument);     // duplicate
  EXPECT_EQ(BuildTranspose({2, 3, 4}, {0, 1, 3}).code(), StatusCode::kInvalidArgument);     // out of range
  EXPECT_EQ(BuildTranspose({2, 3, 4}, {0, 1, -1}).code(), StatusCode::kInvalidArgument);    // negative
  EXPECT_TRUE(BuildTranspose({2, 3, 4}, {2, 0, 1}, false).ok());  // runtime perm: prepared at Invoke
}

}  // namespace
}  // namespace relite
