#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "tests/testing/reference/shape_reference.h"
#include "tests/testing/single_op_model.h"

namespace relite {
namespace {

using testing::SingleOpModel;
namespace ref = testing::reference;

std::string Describe(const ref::StridedSliceSpec& s) {
  auto list = [](const std::vector<int>& v) {
    std::string t = "[";
    for (const int x : v) t += std::to_string(x) + ",";
    return t + "]";
  };
  return "begin " + list(s.begin) + " end " + list(s.end) + " strides " + list(s.strides) + " masks b" +
         std::to_string(s.begin_mask) + " e" + std::to_string(s.end_mask) + " ell" + std::to_string(s.ellipsis_mask) +
         " new" + std::to_string(s.new_axis_mask) + " shrink" + std::to_string(s.shrink_axis_mask) +
         (s.offset ? " offset" : "");
}

template <typename T>
StatusOr<std::pair<Shape, std::vector<T>>> RunStridedSlice(DataType dt, const ref::Tensor<T>& input,
                                                           const ref::StridedSliceSpec& spec, bool int64 = false,
                                                           int threads = 1) {
  SingleOpModel m;
  const int in = m.AddInput(dt, input.shape);
  for (const auto* v : {&spec.begin, &spec.end, &spec.strides}) {
    const Shape s = {static_cast<int32_t>(v->size())};
    if (int64) {
      m.AddConstInput<int64_t>(DataType::kInt64, s, std::vector<int64_t>(v->begin(), v->end()));
    } else {
      m.AddConstInput<int32_t>(DataType::kInt32, s, std::vector<int32_t>(v->begin(), v->end()));
    }
  }
  const int out = m.AddOutput(dt);
  m.SetBuiltinOp(tflite::BuiltinOperator::STRIDED_SLICE, 1, tflite::BuiltinOptions::StridedSliceOptions,
                 tflite::CreateStridedSliceOptions(m.fbb(), spec.begin_mask, spec.end_mask, spec.ellipsis_mask,
                                                   spec.new_axis_mask, spec.shrink_axis_mask, spec.offset)
                     .Union());
  RELITE_RETURN_IF_ERROR(m.Build(threads));
  m.SetInput<T>(in, input.data);
  RELITE_RETURN_IF_ERROR(m.Invoke());
  return std::make_pair(m.GetOutputShape(out), m.GetOutput<T>(out));
}

// Compares with the reference, including "both reject the spec".
// Returns whether the spec was valid.
template <typename T>
bool CheckStridedSlice(DataType dt, const ref::Tensor<T>& input, const ref::StridedSliceSpec& spec,
                       bool int64 = false, int threads = 1) {
  SCOPED_TRACE("input " + ShapeToString(input.shape) + " " + Describe(spec));
  ref::Tensor<T> expected;
  const bool valid = ref::StridedSlice(input, spec, &expected);
  auto r = RunStridedSlice<T>(dt, input, spec, int64, threads);
  if (!valid) {
    EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument) << r.status().ToString();
    return false;
  }
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  if (r.ok()) {
    EXPECT_EQ(r->first, expected.shape);
    EXPECT_EQ(r->second, expected.data);
  }
  return true;
}

ref::StridedSliceSpec RandomSpec(std::mt19937& rng, const Shape& shape, bool allow_offset) {
  const int rank = static_cast<int>(shape.size());
  ref::StridedSliceSpec s;
  const int n = 1 + static_cast<int>(rng() % static_cast<uint32_t>(rank + 2));
  for (int i = 0; i < n; ++i) {
    const int dim = i < rank ? shape[static_cast<size_t>(i)] : 3;
    s.begin.push_back(static_cast<int>(rng() % static_cast<uint32_t>(2 * dim + 5)) - dim - 2);
    s.end.push_back(static_cast<int>(rng() % static_cast<uint32_t>(2 * dim + 5)) - dim - 2);
    int stride = static_cast<int>(rng() % 7) - 3;
    if (stride == 0) stride = 1;
    s.strides.push_back(stride);
  }
  const uint32_t all = (1u << n) - 1;
  auto sparse_mask = [&](int one_in) {
    uint32_t m = 0;
    for (int i = 0; i < n; ++i) {
      if (rng() % static_cast<uint32_t>(one_in) == 0) m |= 1u << i;
    }
    return static_cast<int>(m & all);
  };
  s.begin_mask = sparse_mask(3);
  s.end_mask = sparse_mask(3);
  s.new_axis_mask = sparse_mask(6);
  s.shrink_axis_mask = sparse_mask(4);
  if (rng() % 3 == 0) s.ellipsis_mask = 1 << (rng() % static_cast<uint32_t>(n));
  if (rng() % 20 == 0) s.ellipsis_mask |= 1 << (rng() % static_cast<uint32_t>(n));  // maybe two: invalid
  s.offset = allow_offset && rng() % 4 == 0;
  // Shrunk entries mostly get a positive stride and an in-range index.
  for (int i = 0; i < n; ++i) {
    if ((s.shrink_axis_mask >> i & 1) && rng() % 8 != 0) {
      s.strides[static_cast<size_t>(i)] = 1;
      const int dim = i < rank ? shape[static_cast<size_t>(i)] : 3;
      s.begin[static_cast<size_t>(i)] = static_cast<int>(rng() % static_cast<uint32_t>(2 * dim)) - dim;
    }
  }
  return s;
}

template <typename T>
void RandomCases(DataType dt, bool is_bool, uint32_t seed) {
  std::mt19937 rng(seed);
  int valid = 0, non_empty = 0;
  for (int iter = 0; iter < 300; ++iter) {
    const int rank = 1 + static_cast<int>(rng() % 5);
    const ref::Tensor<T> input = ref::RandomTensor<T>(rng, ref::RandomShape(rng, rank, 1, 5), is_bool);
    const ref::StridedSliceSpec spec = RandomSpec(rng, input.shape, true);
    if (CheckStridedSlice<T>(dt, input, spec, rng() % 2 == 0)) {
      ++valid;
      ref::Tensor<T> expected;
      ref::StridedSlice(input, spec, &expected);
      non_empty += expected.data.empty() ? 0 : 1;
    }
  }
  // The generator must mostly produce valid, non-empty slices.
  EXPECT_GT(valid, 150);
  EXPECT_GT(non_empty, 100);
}

TEST(StridedSlice, RandomFloat32) { RandomCases<float>(DataType::kFloat32, false, 1); }
TEST(StridedSlice, RandomInt32) { RandomCases<int32_t>(DataType::kInt32, false, 2); }
TEST(StridedSlice, RandomInt64) { RandomCases<int64_t>(DataType::kInt64, false, 3); }
TEST(StridedSlice, RandomUInt8) { RandomCases<uint8_t>(DataType::kUInt8, false, 4); }
TEST(StridedSlice, RandomInt8) { RandomCases<int8_t>(DataType::kInt8, false, 5); }
TEST(StridedSlice, RandomInt16) { RandomCases<int16_t>(DataType::kInt16, false, 6); }
TEST(StridedSlice, RandomBool) { RandomCases<uint8_t>(DataType::kBool, true, 7); }

ref::Tensor<float> Iota(const Shape& shape) {
  ref::Tensor<float> t{shape, {}};
  for (int64_t i = 0; i < ref::Count(shape); ++i) t.data.push_back(static_cast<float>(i));
  return t;
}

// Hand-checked NumPy-style examples.
TEST(StridedSlice, KnownExamples) {
  const ref::Tensor<float> v = Iota({6});
  const auto f = DataType::kFloat32;
  {  // v[::-1]
    ref::StridedSliceSpec s{{0}, {0}, {-1}, 1, 1};
    auto r = RunStridedSlice<float>(f, v, s);
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(r->second, (std::vector<float>{5, 4, 3, 2, 1, 0}));
  }
  {  // v[-1] (shrink)
    ref::StridedSliceSpec s{{-1}, {0}, {1}, 0, 0, 0, 0, 1};
    auto r = RunStridedSlice<float>(f, v, s);
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(r->first, Shape{});
    EXPECT_EQ(r->second, std::vector<float>{5});
  }
  {  // v[4:1:-2]
    ref::StridedSliceSpec s{{4}, {1}, {-2}};
    auto r = RunStridedSlice<float>(f, v, s);
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(r->second, (std::vector<float>{4, 2}));
  }
  const ref::Tensor<float> m = Iota({2, 3, 4});
  {  // m[..., 1:3] -> [2, 3, 2]
    ref::StridedSliceSpec s{{0, 1}, {0, 3}, {1, 1}, 0, 0, 1};
    auto r = RunStridedSlice<float>(f, m, s);
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(r->first, (Shape{2, 3, 2}));
    EXPECT_EQ(r->second[0], 1.f);
    EXPECT_EQ(r->second[1], 2.f);
    EXPECT_EQ(r->second[2], 5.f);
  }
  {  // m[1, tf.newaxis, :, -1] -> [1, 3]
    ref::StridedSliceSpec s{{1, 0, 0, -1}, {2, 0, 0, 0}, {1, 1, 1, 1}, 4, 4, 0, 2, 9};
    auto r = RunStridedSlice<float>(f, m, s);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    EXPECT_EQ(r->first, (Shape{1, 3}));
    EXPECT_EQ(r->second, (std::vector<float>{15, 19, 23}));
  }
  {  // offset: end is relative to begin: v[1 : 1 + 3]
    ref::StridedSliceSpec s{{1}, {3}, {1}};
    s.offset = true;
    auto r = RunStridedSlice<float>(f, v, s);
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(r->second, (std::vector<float>{1, 2, 3}));
  }
}

TEST(StridedSlice, LargeMultiThreaded) {
  std::mt19937 rng(8);
  const ref::Tensor<float> input = ref::RandomTensor<float>(rng, {4, 96, 96, 24});
  CheckStridedSlice<float>(DataType::kFloat32, input, {{0, 1, 2, 0}, {4, 95, 90, 24}, {1, 2, 1, 1}}, false, 4);
  CheckStridedSlice<float>(DataType::kFloat32, input, {{0, -1, 0, 0}, {4, 0, 96, 24}, {1, -1, 3, 2}, 0, 2}, false, 4);
}

TEST(StridedSlice, Errors) {
  const ref::Tensor<float> in = Iota({2, 3});
  auto code = [&](const ref::StridedSliceSpec& s) {
    return RunStridedSlice<float>(DataType::kFloat32, in, s).status().code();
  };
  EXPECT_EQ(code({{0, 0}, {1, 1}, {1, 0}}), StatusCode::kInvalidArgument);                  // zero stride
  EXPECT_EQ(code({{0, 0}, {1, 1}, {1, 1}, 0, 0, 3}), StatusCode::kInvalidArgument);         // two ellipses
  EXPECT_EQ(code({{0, 0, 0}, {1, 1, 1}, {1, 1, 1}}), StatusCode::kInvalidArgument);         // too many dims
  EXPECT_EQ(code({{0, 5}, {1, 1}, {1, 1}, 0, 0, 0, 0, 2}), StatusCode::kInvalidArgument);   // shrink out of range
  EXPECT_EQ(code({{0, 1}, {1, 1}, {1, -1}, 0, 0, 0, 0, 2}), StatusCode::kInvalidArgument);  // shrink, negative stride
  {
    SingleOpModel m;  // lengths differ
    m.AddInput(DataType::kFloat32, {2, 3});
    m.AddConstInput<int32_t>(DataType::kInt32, {2}, {0, 0});
    m.AddConstInput<int32_t>(DataType::kInt32, {1}, {1});
    m.AddConstInput<int32_t>(DataType::kInt32, {2}, {1, 1});
    m.AddOutput(DataType::kFloat32);
    m.SetBuiltinOp(tflite::BuiltinOperator::STRIDED_SLICE, 1);
    EXPECT_EQ(m.Build().code(), StatusCode::kInvalidArgument);
  }
  {
    SingleOpModel m;  // runtime begin
    m.AddInput(DataType::kFloat32, {2, 3});
    m.AddInput(DataType::kInt32, {2});
    m.AddConstInput<int32_t>(DataType::kInt32, {2}, {1, 1});
    m.AddConstInput<int32_t>(DataType::kInt32, {2}, {1, 1});
    m.AddOutput(DataType::kFloat32);
    m.SetBuiltinOp(tflite::BuiltinOperator::STRIDED_SLICE, 1);
    ASSERT_TRUE(m.Build().ok());  // runtime begin: prepared at Invoke
    m.SetInput<int32_t>(1, {0, 1});
    ASSERT_TRUE(m.Invoke().ok());
    EXPECT_EQ(m.GetOutputShape(4), (Shape{1, 0}));  // begin [0,1], end [1,1]
  }
}

}  // namespace
}  // namespace relite
