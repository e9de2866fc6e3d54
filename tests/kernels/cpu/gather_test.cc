#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "tests/testing/reference/shape_reference.h"
#include "tests/testing/single_op_model.h"

namespace relite {
namespace {

using testing::SingleOpModel;
namespace ref = testing::reference;

// indices are a runtime input unless `indices_constant`.
template <typename T, typename I>
StatusOr<std::pair<Shape, std::vector<T>>> RunGather(DataType dt, const ref::Tensor<T>& params,
                                                     const ref::Tensor<I>& indices, int axis, int batch_dims,
                                                     bool indices_constant = false, int threads = 1) {
  SingleOpModel m;
  const DataType it = DataTypeOf<I>();
  const int p = m.AddInput(dt, params.shape);
  const int i = indices_constant ? m.AddConstInput<I>(it, indices.shape, indices.data) : m.AddInput(it, indices.shape);
  const int out = m.AddOutput(dt);
  m.SetBuiltinOp(tflite::BuiltinOperator::GATHER, 1, tflite::BuiltinOptions::GatherOptions,
                 tflite::CreateGatherOptions(m.fbb(), axis, batch_dims).Union());
  RELITE_RETURN_IF_ERROR(m.Build(threads));
  m.SetInput<T>(p, params.data);
  if (!indices_constant) m.SetInput<I>(i, indices.data);
  RELITE_RETURN_IF_ERROR(m.Invoke());
  return std::make_pair(m.GetOutputShape(out), m.GetOutput<T>(out));
}

template <typename T, typename I>
void CheckGather(DataType dt, const ref::Tensor<T>& params, const ref::Tensor<I>& indices, int axis, int batch_dims,
                 bool indices_constant = false, int threads = 1) {
  SCOPED_TRACE("params " + ShapeToString(params.shape) + " indices " + ShapeToString(indices.shape) + " axis " +
               std::to_string(axis) + " batch_dims " + std::to_string(batch_dims));
  auto r = RunGather<T, I>(dt, params, indices, axis, batch_dims, indices_constant, threads);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  const int prank = static_cast<int>(params.shape.size());
  const int irank = static_cast<int>(indices.shape.size());
  const ref::Tensor<T> expected = ref::Gather(params, indices, axis < 0 ? axis + prank : axis,
                                              batch_dims < 0 ? batch_dims + irank : batch_dims);
  EXPECT_EQ(r->first, expected.shape);
  EXPECT_EQ(r->second, expected.data);
}

template <typename T, typename I>
void RandomCases(DataType dt, bool is_bool, uint32_t seed) {
  std::mt19937 rng(seed);
  for (int iter = 0; iter < 80; ++iter) {
    const int prank = 1 + static_cast<int>(rng() % 4);
    const Shape pshape = ref::RandomShape(rng, prank, 1, 4);
    const int axis = static_cast<int>(rng() % static_cast<uint32_t>(prank));
    const int batch_dims = static_cast<int>(rng() % static_cast<uint32_t>(axis + 1));
    Shape ishape(pshape.begin(), pshape.begin() + batch_dims);
    const int free_dims = static_cast<int>(rng() % 3);
    for (int d = 0; d < free_dims; ++d) ishape.push_back(static_cast<int32_t>(rng() % 4));
    ref::Tensor<I> indices{ishape, {}};
    for (int64_t k = 0; k < ref::Count(ishape); ++k) {
      indices.data.push_back(static_cast<I>(rng() % static_cast<uint32_t>(pshape[static_cast<size_t>(axis)])));
    }
    const int irank = static_cast<int>(ishape.size());
    CheckGather<T, I>(dt, ref::RandomTensor<T>(rng, pshape, is_bool), indices,
                      rng() % 2 == 0 ? axis : axis - prank, rng() % 2 == 0 ? batch_dims : batch_dims - irank,
                      rng() % 3 == 0 && ref::Count(ishape) > 0);
  }
}

TEST(Gather, RandomFloat32) { RandomCases<float, int32_t>(DataType::kFloat32, false, 1); }
TEST(Gather, RandomFloat32Int64Indices) { RandomCases<float, int64_t>(DataType::kFloat32, false, 2); }
TEST(Gather, RandomInt32Int16Indices) { RandomCases<int32_t, int16_t>(DataType::kInt32, false, 3); }
TEST(Gather, RandomInt64) { RandomCases<int64_t, int32_t>(DataType::kInt64, false, 4); }
TEST(Gather, RandomUInt8) { RandomCases<uint8_t, int32_t>(DataType::kUInt8, false, 5); }
TEST(Gather, RandomInt8) { RandomCases<int8_t, int64_t>(DataType::kInt8, false, 6); }
TEST(Gather, RandomInt16) { RandomCases<int16_t, int32_t>(DataType::kInt16, false, 7); }
TEST(Gather, RandomBool) { RandomCases<uint8_t, int32_t>(DataType::kBool, true, 8); }

TEST(Gather, LargeMultiThreaded) {
  std::mt19937 rng(9);
  const ref::Tensor<float> table = ref::RandomTensor<float>(rng, {1000, 64});
  ref::Tensor<int32_t> ids{{40, 50}, {}};
  for (int k = 0; k < 2000; ++k) ids.data.push_back(static_cast<int32_t>(rng() % 1000));
  CheckGather<float, int32_t>(DataType::kFloat32, table, ids, 0, 0, false, 4);
  ref::Tensor<int32_t> cols{{300}, {}};
  for (int k = 0; k < 300; ++k) cols.data.push_back(static_cast<int32_t>(rng() % 64));
  CheckGather<float, int32_t>(DataType::kFloat32, table, cols, 1, 0, false, 4);
}

TEST(Gather, OutOfRangeIndexFailsInvoke) {
  const ref::Tensor<float> params{{3, 2}, {1, 2, 3, 4, 5, 6}};
  for (const int32_t bad : {3, -1, 1000}) {
    auto r = RunGather<float, int32_t>(DataType::kFloat32, params, {{2}, {0, bad}}, 0, 0);
    EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument) << bad;
  }
  auto r64 = RunGather<float, int64_t>(DataType::kFloat32, params, {{1}, {int64_t{1} << 40}}, 1, 0);
  EXPECT_EQ(r64.status().code(), StatusCode::kInvalidArgument);
  // A constant bad index fails the same way.
  auto folded = RunGather<float, int32_t>(DataType::kFloat32, params, {{1}, {7}}, 0, 0, true);
  EXPECT_FALSE(folded.ok());
}

TEST(Gather, Errors) {
  auto code = [](const Shape& p, const Shape& i, int axis, int batch_dims, DataType it = DataType::kInt32) {
    SingleOpModel m;
    m.AddInput(DataType::kFloat32, p);
    m.AddInput(it, i);
    m.AddOutput(DataType::kFloat32);
    m.SetBuiltinOp(tflite::BuiltinOperator::GATHER, 1, tflite::BuiltinOptions::GatherOptions,
                   tflite::CreateGatherOptions(m.fbb(), axis, batch_dims).Union());
    return m.Build().code();
  };
  EXPECT_EQ(code({2, 3}, {4}, 1, 0), StatusCode::kOk);
  EXPECT_EQ(code({2, 3}, {4}, 2, 0), StatusCode::kInvalidArgument);               // axis
  EXPECT_EQ(code({2, 3}, {4}, -3, 0), StatusCode::kInvalidArgument);              // axis
  EXPECT_EQ(code({2, 3}, {2, 4}, 1, 2), StatusCode::kInvalidArgument);            // batch_dims > axis
  EXPECT_EQ(code({2, 3}, {3, 4}, 1, 1), StatusCode::kInvalidArgument);            // batch dim mismatch
  EXPECT_EQ(code({2, 3}, {2, 4}, 1, -3), StatusCode::kInvalidArgument);           // batch_dims range
  EXPECT_EQ(code({2, 3}, {4}, 0, 0, DataType::kFloat32), StatusCode::kInvalidArgument);  // index dtype
}

}  // namespace
}  // namespace relite
