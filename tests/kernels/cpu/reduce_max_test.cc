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

constexpr tflite::BuiltinOperator kOp = tflite::BuiltinOperator::REDUCE_MAX;
constexpr ref::ReduceKind kKind = ref::ReduceKind::kMax;

template <typename T>
std::vector<T> RandomData(size_t n, std::mt19937& rng) {
  std::vector<T> v(n);
  if constexpr (std::is_floating_point_v<T>) {
    std::uniform_real_distribution<float> dist(-1.f, 1.f);
    for (T& x : v) x = dist(rng);
  } else {
    std::uniform_int_distribution<int> dist(-1000, 1000);
    for (T& x : v) x = static_cast<T>(dist(rng));
  }
  return v;
}

template <typename T>
void ExpectAllNear(const std::vector<T>& actual, const std::vector<T>& expected, float tol = 1e-5f) {
  ASSERT_EQ(actual.size(), expected.size());
  int reported = 0;
  for (size_t i = 0; i < actual.size(); ++i) {
    bool ok;
    if constexpr (std::is_floating_point_v<T>) {
      ok = std::fabs(actual[i] - expected[i]) <= tol * (1.f + std::fabs(expected[i]));
    } else {
      ok = actual[i] == expected[i];
    }
    if (!ok) {
      ADD_FAILURE() << "index " << i << ": got " << actual[i] << ", expected " << expected[i];
      if (++reported >= 10) return;
    }
  }
}

std::string Describe(const Shape& shape, const std::vector<int>& axes, bool keep_dims) {
  std::string s = "shape " + ShapeToString(shape) + " axes [";
  for (size_t i = 0; i < axes.size(); ++i) {
    if (i > 0) s += ",";
    s += std::to_string(axes[i]);
  }
  return s + "] keep_dims " + (keep_dims ? "true" : "false");
}

struct ReduceOptions {
  bool keep_dims = false;
  bool scalar_axis = false;  // a rank-0 axis tensor (needs exactly one axis)
  bool int64_axis = false;
  bool no_options = false;   // no ReducerOptions table: keep_dims = false
  int threads = 1;
  uint32_t seed = 1;
};

template <typename T>
void RunReduceCaseWithData(const Shape& shape, const std::vector<int>& axes, const ReduceOptions& o,
                           const std::vector<T>& input, float tol = 1e-5f) {
  SCOPED_TRACE(Describe(shape, axes, o.keep_dims) + " threads " + std::to_string(o.threads));
  SingleOpModel m;
  const int in = m.AddInput(DataTypeOf<T>(), shape);
  const Shape axis_shape = o.scalar_axis ? Shape{} : Shape{static_cast<int32_t>(axes.size())};
  if (o.int64_axis) {
    m.AddConstInput<int64_t>(DataType::kInt64, axis_shape, std::vector<int64_t>(axes.begin(), axes.end()));
  } else {
    m.AddConstInput<int32_t>(DataType::kInt32, axis_shape, std::vector<int32_t>(axes.begin(), axes.end()));
  }
  const int out = m.AddOutput(DataTypeOf<T>());
  if (o.no_options) {
    m.SetBuiltinOp(kOp, 1);
  } else {
    m.SetBuiltinOp(kOp, 1, tflite::BuiltinOptions::ReducerOptions,
                   tflite::CreateReducerOptions(m.fbb(), o.keep_dims).Union());
  }
  const Status built = m.Build(o.threads);
  ASSERT_TRUE(built.ok()) << built.ToString();
  m.SetInput<T>(in, input);
  const Status run = m.Invoke();
  ASSERT_TRUE(run.ok()) << run.ToString();
  const std::vector<int> dims(shape.begin(), shape.end());
  const std::vector<int> expected_shape = ref::ReducedShape(dims, axes, o.keep_dims && !o.no_options);
  EXPECT_EQ(m.GetOutputShape(out), Shape(expected_shape.begin(), expected_shape.end()));
  ExpectAllNear(m.GetOutput<T>(out), ref::Reduce<T>(input, dims, axes, kKind), tol);
}

template <typename T>
void RunReduceCase(const Shape& shape, const std::vector<int>& axes, const ReduceOptions& o = {}) {
  std::mt19937 rng(o.seed);
  RunReduceCaseWithData<T>(shape, axes, o, RandomData<T>(static_cast<size_t>(NumElements(shape)), rng));
}

// Every non-empty subset of the axes of a 4-D shape, with keep_dims both
// ways, as positive and as negative axes. (An empty axis list needs a
// constant tensor with no bytes, which the model loader rejects as a tensor
// read before it is written.)
template <typename T>
void RunAllAxisSubsets(const Shape& shape) {
  const int rank = static_cast<int>(shape.size());
  for (int mask = 1; mask < (1 << rank); ++mask) {
    for (bool keep : {false, true}) {
      std::vector<int> axes, negative;
      for (int d = 0; d < rank; ++d) {
        if (mask & (1 << d)) {
          axes.push_back(d);
          negative.push_back(d - rank);
        }
      }
      ReduceOptions o;
      o.keep_dims = keep;
      o.seed = static_cast<uint32_t>(mask + 1);
      RunReduceCase<T>(shape, axes, o);
      RunReduceCase<T>(shape, negative, o);
    }
  }
}

TEST(ReduceMaxTest, AllAxisSubsetsFloat) { RunAllAxisSubsets<float>({2, 3, 4, 5}); }
TEST(ReduceMaxTest, AllAxisSubsetsWithUnitDims) { RunAllAxisSubsets<float>({3, 1, 6, 1}); }
TEST(ReduceMaxTest, AllAxisSubsetsInt32) { RunAllAxisSubsets<int32_t>({3, 2, 5, 4}); }

TEST(ReduceMaxTest, DuplicateAndMixedSignAxes) {
  ReduceOptions o;
  RunReduceCase<float>({4, 5, 6}, {1, -2}, o);
  RunReduceCase<float>({4, 5, 6}, {0, 2, -1, 0}, o);
  o.keep_dims = true;
  RunReduceCase<float>({4, 5, 6}, {2, 2, -3}, o);
}

TEST(ReduceMaxTest, ScalarAndInt64Axis) {
  ReduceOptions o;
  o.scalar_axis = true;
  RunReduceCase<float>({3, 10, 4}, {1}, o);
  RunReduceCase<float>({3, 10, 4}, {-1}, o);
  o.keep_dims = true;
  RunReduceCase<float>({3, 10, 4}, {0}, o);
  ReduceOptions o64;
  o64.int64_axis = true;
  RunReduceCase<float>({3, 10, 4}, {0, -1}, o64);
}

TEST(ReduceMaxTest, DefaultOptions) {
  ReduceOptions o;
  o.no_options = true;
  RunReduceCase<float>({2, 6, 3}, {1}, o);
}

TEST(ReduceMaxTest, Ranks1To6AndMultiplePasses) {
  ReduceOptions o;
  RunReduceCase<float>({37}, {0}, o);
  RunReduceCase<float>({9, 13}, {0}, o);
  RunReduceCase<float>({9, 13}, {1}, o);
  RunReduceCase<float>({3, 4, 5, 6}, {0, 2}, o);     // two passes
  RunReduceCase<float>({3, 4, 5, 6}, {1, 3}, o);     // two passes, innermost reduced
  RunReduceCase<float>({2, 3, 4, 3, 2}, {0, 2, 4}, o);  // three passes
  RunReduceCase<float>({2, 3, 2, 3, 2, 3}, {1, 3, 5}, o);
  RunReduceCase<float>({2, 3, 2, 3, 2, 3}, {0, 1, 3, 4}, o);
  o.keep_dims = true;
  RunReduceCase<float>({2, 3, 2, 3, 2, 3}, {0, 2, 4}, o);
  RunReduceCase<int32_t>({2, 3, 2, 3, 2, 3}, {0, 2, -1}, o);
}

TEST(ReduceMaxTest, GlobalPoolingNHWC) {
  for (bool keep : {false, true}) {
    ReduceOptions o;
    o.keep_dims = keep;
    RunReduceCase<float>({2, 7, 7, 64}, {1, 2}, o);
    RunReduceCase<float>({1, 5, 5, 3}, {1, 2}, o);     // narrow channels
    RunReduceCase<float>({1, 4, 6, 100}, {2, 1}, o);   // a partial column tile
    o.threads = 2;
    RunReduceCase<float>({1, 13, 13, 1280}, {1, 2}, o);
    o.threads = 3;
    RunReduceCase<float>({3, 9, 9, 40}, {-3, -2}, o);
  }
}

TEST(ReduceMaxTest, ThreadsOverRows) {
  ReduceOptions o;
  o.threads = 4;
  RunReduceCase<float>({64, 3000}, {1}, o);
  RunReduceCase<float>({3000, 64}, {0}, o);
  RunReduceCase<int32_t>({50, 2000}, {-1}, o);
}

TEST(ReduceMaxTest, LargeReductionsStayAccurate) {
  // Sums of ~1M values: a single running float sum would drift far from the
  // double reference.
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> dist(0.f, 1.f);
  std::vector<float> data(1 << 20);
  for (float& x : data) x = dist(rng);
  for (int threads : {1, 2}) {
    ReduceOptions o;
    o.threads = threads;
    RunReduceCaseWithData<float>({1 << 20}, {0}, o, data);
    RunReduceCaseWithData<float>({1 << 16, 16}, {0}, o, data);
    RunReduceCaseWithData<float>({1 << 18, 4}, {0}, o, data);
    RunReduceCaseWithData<float>({4, 1 << 18}, {1}, o, data);
  }
}

Status BuildReduce(DataType type, const Shape& shape, DataType axis_type, const std::vector<int32_t>& axes,
                   bool axis_const = true, DataType out_type = DataType::kFloat32, int num_inputs = 2) {
  SingleOpModel m;
  m.AddInput(type, shape);
  if (num_inputs >= 2) {
    const Shape axis_shape{static_cast<int32_t>(axes.size())};
    if (!axis_const) {
      m.AddInput(axis_type, axis_shape);
    } else if (axis_type == DataType::kFloat32) {
      m.AddConstInput<float>(axis_type, axis_shape, std::vector<float>(axes.begin(), axes.end()));
    } else {
      m.AddConstInput<int32_t>(axis_type, axis_shape, axes);
    }
  }
  if (num_inputs >= 3) m.AddInput(type, shape);
  m.AddOutput(out_type);
  m.SetBuiltinOp(kOp, 1, tflite::BuiltinOptions::ReducerOptions, tflite::CreateReducerOptions(m.fbb(), false).Union());
  return m.Build();
}

TEST(ReduceMaxTest, Errors) {
  const DataType f32 = DataType::kFloat32, i32 = DataType::kInt32;
  EXPECT_TRUE(BuildReduce(f32, {2, 3}, i32, {1}).ok());
  EXPECT_EQ(BuildReduce(f32, {2, 3}, i32, {2}).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(BuildReduce(f32, {2, 3}, i32, {-3}).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(BuildReduce(f32, {2, 3}, f32, {1}).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(BuildReduce(f32, {2, 3}, i32, {1}, /*axis_const=*/false).code(), StatusCode::kUnimplemented);
  EXPECT_EQ(BuildReduce(f32, {2, 3}, i32, {1}, true, i32).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(BuildReduce(DataType::kInt8, {2, 3}, i32, {1}, true, DataType::kInt8).code(), StatusCode::kUnimplemented);
  EXPECT_EQ(BuildReduce(DataType::kBool, {2, 3}, i32, {1}, true, DataType::kBool).code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(BuildReduce(f32, {2, 3}, i32, {1}, true, f32, /*num_inputs=*/1).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(BuildReduce(f32, {2, 3}, i32, {1}, true, f32, /*num_inputs=*/3).code(), StatusCode::kInvalidArgument);
}

template <typename T>
std::vector<T> RunKnown(const Shape& shape, const std::vector<int32_t>& axes, const std::vector<T>& input,
                        bool keep_dims = false) {
  SingleOpModel m;
  const int in = m.AddInput(DataTypeOf<T>(), shape);
  m.AddConstInput<int32_t>(DataType::kInt32, {static_cast<int32_t>(axes.size())}, axes);
  const int out = m.AddOutput(DataTypeOf<T>());
  m.SetBuiltinOp(kOp, 1, tflite::BuiltinOptions::ReducerOptions,
                 tflite::CreateReducerOptions(m.fbb(), keep_dims).Union());
  const Status built = m.Build();
  EXPECT_TRUE(built.ok()) << built.ToString();
  if (!built.ok()) return {};
  if (!input.empty()) m.SetInput<T>(in, input);
  EXPECT_TRUE(m.Invoke().ok());
  return m.GetOutput<T>(out);
}

TEST(ReduceMaxTest, Int64Data) {
  ReduceOptions o;
  RunReduceCase<int64_t>({4, 6, 5}, {0, 2}, o);
  o.keep_dims = true;
  RunReduceCase<int64_t>({4, 6, 5}, {1}, o);
}

TEST(ReduceMaxTest, KnownValues) {
  EXPECT_EQ(RunKnown<float>({2, 3}, {1}, {1.f, -2.f, 3.f, -4.f, -5.f, -6.f}), (std::vector<float>{3.f, -4.f}));
  EXPECT_EQ(RunKnown<int32_t>({2, 3}, {0}, {1, -2, 3, -4, -5, 6}), (std::vector<int32_t>{1, -2, 6}));
}

TEST(ReduceMaxTest, EmptyReducedAxisGivesLowest) {
  EXPECT_EQ(RunKnown<float>({2, 0, 3}, {1}, {}), (std::vector<float>(6, std::numeric_limits<float>::lowest())));
  EXPECT_EQ(RunKnown<int32_t>({0, 2}, {0}, {}), (std::vector<int32_t>(2, std::numeric_limits<int32_t>::lowest())));
}

TEST(ReduceMaxTest, NaNsAreSkipped) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  std::vector<float> row(70, -1.f);
  row[0] = nan;
  row[33] = 2.f;
  row[50] = nan;
  EXPECT_EQ(RunKnown<float>({70}, {0}, row), (std::vector<float>{2.f}));
}


}  // namespace
}  // namespace relite
