#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include <gtest/gtest.h>

#include "tests/testing/reference/reduce_reference.h"
#include "tests/testing/single_op_model.h"

namespace relite {
namespace {

using testing::SingleOpModel;
namespace ref = testing::reference;

// Values drawn from a small range so that ties are common.
template <typename T>
std::vector<T> RandomData(size_t n, std::mt19937& rng, int range) {
  std::vector<T> v(n);
  if constexpr (std::is_same_v<T, bool>) {
    std::uniform_int_distribution<int> dist(0, 1);
    for (size_t i = 0; i < n; ++i) v[i] = dist(rng) != 0;
  } else if constexpr (std::is_floating_point_v<T>) {
    std::uniform_int_distribution<int> dist(-range, range);
    for (T& x : v) x = static_cast<T>(dist(rng)) * 0.25f;
  } else {
    const int lo = std::is_signed_v<T> ? -range : 0;
    std::uniform_int_distribution<int> dist(lo, lo + 2 * range);
    for (T& x : v) x = static_cast<T>(dist(rng));
  }
  return v;
}

enum class IndexType { kDefault, kInt32, kInt64 };

struct ArgMaxCase {
  Shape shape;
  int axis = 0;
  IndexType index = IndexType::kInt32;
  bool int64_axis = false;
  bool scalar_axis = false;
  int threads = 1;
  int range = 4;
};

template <typename T>
void RunCaseWithData(const ArgMaxCase& c, const std::vector<T>& input) {
  SCOPED_TRACE("shape " + ShapeToString(c.shape) + " axis " + std::to_string(c.axis) + " dtype " +
               DataTypeName(DataTypeOf<T>()) + " index " + std::to_string(static_cast<int>(c.index)));
  SingleOpModel m;
  const int in = m.AddInput(DataTypeOf<T>(), c.shape);
  const Shape axis_shape = c.scalar_axis ? Shape{} : Shape{1};
  if (c.int64_axis) {
    m.AddConstInput<int64_t>(DataType::kInt64, axis_shape, {c.axis});
  } else {
    m.AddConstInput<int32_t>(DataType::kInt32, axis_shape, {c.axis});
  }
  const bool wide = c.index == IndexType::kInt64;
  const int out = m.AddOutput(wide ? DataType::kInt64 : DataType::kInt32);
  if (c.index == IndexType::kDefault) {
    m.SetBuiltinOp(tflite::BuiltinOperator::ARG_MAX, 1);
  } else {
    m.SetBuiltinOp(tflite::BuiltinOperator::ARG_MAX, 2, tflite::BuiltinOptions::ArgMaxOptions,
                   tflite::CreateArgMaxOptions(m.fbb(), wide ? tflite::TensorType::INT64 : tflite::TensorType::INT32)
                       .Union());
  }
  const Status built = m.Build(c.threads);
  ASSERT_TRUE(built.ok()) << built.ToString();
  if constexpr (std::is_same_v<T, bool>) {
    m.SetInput<uint8_t>(in, std::vector<uint8_t>(input.begin(), input.end()));  // vector<bool> has no data()
  } else {
    m.SetInput<T>(in, input);
  }
  ASSERT_TRUE(m.Invoke().ok());
  const int rank = static_cast<int>(c.shape.size());
  const int axis = c.axis < 0 ? c.axis + rank : c.axis;
  Shape expected_shape;
  for (int d = 0; d < rank; ++d) {
    if (d != axis) expected_shape.push_back(c.shape[static_cast<size_t>(d)]);
  }
  EXPECT_EQ(m.GetOutputShape(out), expected_shape);
  const std::vector<int64_t> expected =
      ref::ArgMax<T>(input, std::vector<int>(c.shape.begin(), c.shape.end()), axis);
  std::vector<int64_t> actual;
  if (wide) {
    actual = m.GetOutput<int64_t>(out);
  } else {
    for (int32_t v : m.GetOutput<int32_t>(out)) actual.push_back(v);
  }
  EXPECT_EQ(actual, expected);
}

template <typename T>
void RunCase(const ArgMaxCase& c, uint32_t seed = 1) {
  std::mt19937 rng(seed);
  RunCaseWithData<T>(c, RandomData<T>(static_cast<size_t>(NumElements(c.shape)), rng, c.range));
}

template <typename T>
void RunAxisSweep() {
  const std::vector<Shape> shapes = {{13}, {5, 9}, {3, 4, 5}, {2, 3, 70, 3}, {2, 3, 4, 130}, {1, 1, 3, 1}};
  uint32_t seed = 1;
  for (const Shape& shape : shapes) {
    const int rank = static_cast<int>(shape.size());
    for (int axis = -rank; axis < rank; ++axis) {
      ArgMaxCase c;
      c.shape = shape;
      c.axis = axis;
      RunCase<T>(c, seed++);
    }
  }
}

TEST(ArgMaxTest, Float32AllAxes) { RunAxisSweep<float>(); }
TEST(ArgMaxTest, Int32AllAxes) { RunAxisSweep<int32_t>(); }
TEST(ArgMaxTest, UInt8AllAxes) { RunAxisSweep<uint8_t>(); }
TEST(ArgMaxTest, Int8AllAxes) { RunAxisSweep<int8_t>(); }
TEST(ArgMaxTest, OtherIntegerAndBoolInputs) {
  ArgMaxCase c;
  c.shape = {4, 37};
  c.axis = 1;
  RunCase<int16_t>(c);
  RunCase<int64_t>(c);
  RunCase<bool>(c);
  c.axis = 0;
  RunCase<bool>(c);
}

TEST(ArgMaxTest, IndexTypesAndAxisTensors) {
  for (IndexType index : {IndexType::kDefault, IndexType::kInt32, IndexType::kInt64}) {
    for (bool int64_axis : {false, true}) {
      for (bool scalar_axis : {false, true}) {
        ArgMaxCase c;
        c.shape = {3, 11, 6};
        c.axis = 1;
        c.index = index;
        c.int64_axis = int64_axis;
        c.scalar_axis = scalar_axis;
        RunCase<float>(c);
      }
    }
  }
}

TEST(ArgMaxTest, TiesGoToTheSmallestIndex) {
  ArgMaxCase c;
  c.shape = {2, 6};
  c.axis = 1;
  RunCaseWithData<float>(c, {1.f, 3.f, 3.f, 0.f, 3.f, 2.f, 5.f, 5.f, 5.f, 5.f, 5.f, 5.f});
  c.axis = 0;
  RunCaseWithData<int32_t>(c, {1, 3, 3, 0, 3, 2, 1, 5, 3, 5, 3, 2});
  // Long constant rows: the answer is index 0.
  c.shape = {3, 200};
  c.axis = 1;
  RunCaseWithData<float>(c, std::vector<float>(600, -2.f));
  c.axis = 0;
  RunCaseWithData<float>(c, std::vector<float>(600, -2.f));
}

TEST(ArgMaxTest, NaNAndInfinities) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  ArgMaxCase c;
  c.shape = {4, 40};
  c.axis = 1;
  std::vector<float> data(160, 0.f);
  data[0] = nan;                       // row 0: NaN first, never beaten
  data[7] = 4.f;
  data[40 + 3] = nan;                  // row 1: NaN skipped, max at 10
  data[40 + 10] = 2.f;
  for (int i = 80; i < 120; ++i) data[static_cast<size_t>(i)] = -inf;  // row 2: all -inf
  data[120 + 39] = inf;                // row 3: +inf last
  RunCaseWithData<float>(c, data);
  c.shape = {40, 4};
  c.axis = 0;
  RunCaseWithData<float>(c, data);
}

TEST(ArgMaxTest, Threads) {
  for (int threads : {2, 4}) {
    ArgMaxCase c;
    c.threads = threads;
    c.range = 1000;
    c.shape = {300, 500};
    c.axis = 1;
    RunCase<float>(c, 3);
    c.axis = 0;
    RunCase<float>(c, 4);
  }
}

Status BuildArgMax(DataType type, const std::vector<int32_t>& axis, DataType out_type = DataType::kInt32,
                   tflite::TensorType option = tflite::TensorType::INT32, bool axis_const = true,
                   DataType axis_type = DataType::kInt32) {
  SingleOpModel m;
  m.AddInput(type, {3, 4});
  if (!axis_const) {
    m.AddInput(axis_type, {static_cast<int32_t>(axis.size())});
  } else if (axis_type == DataType::kFloat32) {
    m.AddConstInput<float>(axis_type, {static_cast<int32_t>(axis.size())}, std::vector<float>(axis.begin(), axis.end()));
  } else {
    m.AddConstInput<int32_t>(axis_type, {static_cast<int32_t>(axis.size())}, axis);
  }
  m.AddOutput(out_type);
  m.SetBuiltinOp(tflite::BuiltinOperator::ARG_MAX, 1, tflite::BuiltinOptions::ArgMaxOptions,
                 tflite::CreateArgMaxOptions(m.fbb(), option).Union());
  return m.Build();
}

TEST(ArgMaxTest, Errors) {
  const DataType f32 = DataType::kFloat32, i32 = DataType::kInt32, i64 = DataType::kInt64;
  EXPECT_TRUE(BuildArgMax(f32, {1}).ok());
  EXPECT_EQ(BuildArgMax(f32, {2}).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(BuildArgMax(f32, {-3}).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(BuildArgMax(f32, {0, 1}).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(BuildArgMax(f32, {1}, f32, tflite::TensorType::FLOAT32).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(BuildArgMax(f32, {1}, i32, tflite::TensorType::INT64).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(BuildArgMax(f32, {1}, i64, tflite::TensorType::UINT8).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(BuildArgMax(f32, {1}, i32, tflite::TensorType::INT32, false).code(), StatusCode::kUnimplemented);
  EXPECT_EQ(BuildArgMax(f32, {1}, i32, tflite::TensorType::INT32, true, f32).code(), StatusCode::kInvalidArgument);
  EXPECT_FALSE(BuildArgMax(DataType::kString, {1}).ok());
}

}  // namespace
}  // namespace relite
