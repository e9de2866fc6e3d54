#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "tests/testing/reference/shape_reference.h"
#include "tests/testing/single_op_model.h"

namespace relite {
namespace {

using testing::SingleOpModel;
namespace ref = testing::reference;

template <typename T, typename I>
StatusOr<std::pair<Shape, std::vector<T>>> RunGatherNd(DataType dt, const ref::Tensor<T>& params,
                                                       const ref::Tensor<I>& indices, int threads = 1) {
  SingleOpModel m;
  const int p = m.AddInput(dt, params.shape);
  const int i = m.AddInput(DataTypeOf<I>(), indices.shape);
  const int out = m.AddOutput(dt);
  m.SetBuiltinOp(tflite::BuiltinOperator::GATHER_ND, 1, tflite::BuiltinOptions::GatherNdOptions,
                 tflite::CreateGatherNdOptions(m.fbb()).Union());
  RELITE_RETURN_IF_ERROR(m.Build(threads));
  m.SetInput<T>(p, params.data);
  m.SetInput<I>(i, indices.data);
  RELITE_RETURN_IF_ERROR(m.Invoke());
  return std::make_pair(m.GetOutputShape(out), m.GetOutput<T>(out));
}

template <typename T, typename I>
void CheckGatherNd(DataType dt, const ref::Tensor<T>& params, const ref::Tensor<I>& indices, int threads = 1) {
  SCOPED_TRACE("params " + ShapeToString(params.shape) + " indices " + ShapeToString(indices.shape));
  auto r = RunGatherNd<T, I>(dt, params, indices, threads);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  const ref::Tensor<T> expected = ref::GatherNd(params, indices);
  EXPECT_EQ(r->first, expected.shape);
  EXPECT_EQ(r->second, expected.data);
}

template <typename I>
ref::Tensor<I> RandomIndices(std::mt19937& rng, const Shape& params, const Shape& batch, int depth) {
  ref::Tensor<I> t{batch, {}};
  t.shape.push_back(depth);
  for (int64_t k = 0; k < ref::Count(batch); ++k) {
    for (int d = 0; d < depth; ++d) t.data.push_back(static_cast<I>(rng() % static_cast<uint32_t>(params[static_cast<size_t>(d)])));
  }
  return t;
}

template <typename T, typename I>
void RandomCases(DataType dt, bool is_bool, uint32_t seed) {
  std::mt19937 rng(seed);
  for (int iter = 0; iter < 60; ++iter) {
    const int prank = 1 + static_cast<int>(rng() % 4);
    const Shape pshape = ref::RandomShape(rng, prank, 1, 4);
    const int depth = static_cast<int>(rng() % static_cast<uint32_t>(prank + 1));
    const Shape batch = ref::RandomShape(rng, static_cast<int>(rng() % 3), 1, 3);
    CheckGatherNd<T, I>(dt, ref::RandomTensor<T>(rng, pshape, is_bool), RandomIndices<I>(rng, pshape, batch, depth));
  }
}

TEST(GatherNd, RandomFloat32) { RandomCases<float, int32_t>(DataType::kFloat32, false, 1); }
TEST(GatherNd, RandomFloat32Int64Indices) { RandomCases<float, int64_t>(DataType::kFloat32, false, 2); }
TEST(GatherNd, RandomInt32Int16Indices) { RandomCases<int32_t, int16_t>(DataType::kInt32, false, 3); }
TEST(GatherNd, RandomInt64) { RandomCases<int64_t, int32_t>(DataType::kInt64, false, 4); }
TEST(GatherNd, RandomUInt8) { RandomCases<uint8_t, int32_t>(DataType::kUInt8, false, 5); }
TEST(GatherNd, RandomInt8) { RandomCases<int8_t, int32_t>(DataType::kInt8, false, 6); }
TEST(GatherNd, RandomBool) { RandomCases<uint8_t, int32_t>(DataType::kBool, true, 7); }

TEST(GatherNd, LargeMultiThreaded) {
  std::mt19937 rng(8);
  const Shape pshape = {50, 40, 64};
  CheckGatherNd<float, int32_t>(DataType::kFloat32, ref::RandomTensor<float>(rng, pshape),
                                RandomIndices<int32_t>(rng, pshape, {30, 40}, 2), 4);
}

TEST(GatherNd, OutOfRangeIndexFailsInvoke) {
  const ref::Tensor<float> params{{2, 3}, {1, 2, 3, 4, 5, 6}};
  auto code = [&](const ref::Tensor<int32_t>& indices) {
    return RunGatherNd<float, int32_t>(DataType::kFloat32, params, indices).status().code();
  };
  EXPECT_EQ(code({{2, 2}, {0, 0, 1, 3}}), StatusCode::kInvalidArgument);
  EXPECT_EQ(code({{1, 1}, {-1}}), StatusCode::kInvalidArgument);
  EXPECT_EQ(code({{1, 2}, {1, 2}}), StatusCode::kOk);
}

TEST(GatherNd, Errors) {
  auto code = [](const Shape& p, const Shape& i, DataType it = DataType::kInt32) {
    SingleOpModel m;
    m.AddInput(DataType::kFloat32, p);
    m.AddInput(it, i);
    m.AddOutput(DataType::kFloat32);
    m.SetBuiltinOp(tflite::BuiltinOperator::GATHER_ND, 1);
    return m.Build().code();
  };
  EXPECT_EQ(code({2, 3}, {4, 2}), StatusCode::kOk);
  EXPECT_EQ(code({2, 3}, {4, 3}), StatusCode::kInvalidArgument);                       // depth > rank
  EXPECT_EQ(code({2, 3}, {}), StatusCode::kInvalidArgument);                           // scalar indices
  EXPECT_EQ(code({2, 3}, {4, 2}, DataType::kFloat32), StatusCode::kInvalidArgument);  // index dtype
}

}  // namespace
}  // namespace relite
