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
StatusOr<std::pair<Shape, std::vector<T>>> RunOp(DataType dt, const ref::Tensor<T>& input, int block_size,
                                               int threads = 1) {
  SingleOpModel m;
  const int in = m.AddInput(dt, input.shape);
  const int out = m.AddOutput(dt);
  m.SetBuiltinOp(tflite::BuiltinOperator::SPACE_TO_DEPTH, 1, tflite::BuiltinOptions::SpaceToDepthOptions,
                 tflite::CreateSpaceToDepthOptions(m.fbb(), block_size).Union());
  RELITE_RETURN_IF_ERROR(m.Build(threads));
  m.SetInput<T>(in, input.data);
  RELITE_RETURN_IF_ERROR(m.Invoke());
  return std::make_pair(m.GetOutputShape(out), m.GetOutput<T>(out));
}

template <typename T>
void Check(DataType dt, const ref::Tensor<T>& input, int block_size, int threads = 1) {
  SCOPED_TRACE("input " + ShapeToString(input.shape) + " block " + std::to_string(block_size));
  auto r = RunOp<T>(dt, input, block_size, threads);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  const ref::Tensor<T> expected = ref::SpaceToDepth(input, block_size);
  EXPECT_EQ(r->first, expected.shape);
  EXPECT_EQ(r->second, expected.data);
}

// A random NHWC shape valid for the op with this block size.
Shape RandomShape(std::mt19937& rng, int bs);

template <typename T>
void RandomCases(DataType dt, bool is_bool, uint32_t seed) {
  std::mt19937 rng(seed);
  for (int iter = 0; iter < 40; ++iter) {
    const int bs = 1 + static_cast<int>(rng() % 4);
    Check<T>(dt, ref::RandomTensor<T>(rng, RandomShape(rng, bs), is_bool), bs);
  }
}

TEST(SpaceToDepth, RandomFloat32) { RandomCases<float>(DataType::kFloat32, false, 1); }
TEST(SpaceToDepth, RandomInt32) { RandomCases<int32_t>(DataType::kInt32, false, 2); }
TEST(SpaceToDepth, RandomInt64) { RandomCases<int64_t>(DataType::kInt64, false, 3); }
TEST(SpaceToDepth, RandomUInt8) { RandomCases<uint8_t>(DataType::kUInt8, false, 4); }
TEST(SpaceToDepth, RandomInt8) { RandomCases<int8_t>(DataType::kInt8, false, 5); }
TEST(SpaceToDepth, RandomInt16) { RandomCases<int16_t>(DataType::kInt16, false, 6); }
TEST(SpaceToDepth, RandomBool) { RandomCases<uint8_t>(DataType::kBool, true, 7); }

Shape RandomShape(std::mt19937& rng, int bs) {
  return {1 + static_cast<int>(rng() % 2), bs * (1 + static_cast<int>(rng() % 3)),
          bs * (1 + static_cast<int>(rng() % 3)), 1 + static_cast<int>(rng() % 5)};
}

TEST(SpaceToDepth, LargeMultiThreaded) {
  std::mt19937 rng(8);
  Check<float>(DataType::kFloat32, ref::RandomTensor<float>(rng, {2, 80, 80, 16}), 2, 4);
  Check<float>(DataType::kFloat32, ref::RandomTensor<float>(rng, {1, 96, 93, 3}), 3, 4);
}

TEST(SpaceToDepth, Errors) {
  const ref::Tensor<float> in{{1, 4, 6, 1}, std::vector<float>(24, 0.f)};
  EXPECT_EQ(RunOp<float>(DataType::kFloat32, in, 4).status().code(), StatusCode::kInvalidArgument);   // 6 % 4
  EXPECT_EQ(RunOp<float>(DataType::kFloat32, in, -1).status().code(), StatusCode::kInvalidArgument);  // block < 1
  EXPECT_EQ(RunOp<float>(DataType::kFloat32, {{4, 6}, std::vector<float>(24, 0.f)}, 2).status().code(),
            StatusCode::kInvalidArgument);  // rank 2
}

}  // namespace
}  // namespace relite
