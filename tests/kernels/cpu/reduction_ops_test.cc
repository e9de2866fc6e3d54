// REDUCE_MIN, REDUCE_PROD, REDUCE_ANY, REDUCE_ALL, ARG_MIN, LOG_SOFTMAX,
// L2_NORMALIZATION and CUMSUM against plain-loop references written from the
// op definitions (LiteRT's own outputs: litert_golden_test).
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "tests/testing/single_op_model.h"

namespace relite {
namespace {

using testing::SingleOpModel;
using tflite::BuiltinOperator;

template <typename T>
struct Result {
  Status build, invoke;
  Shape shape;
  std::vector<T> out;
};

// One reduce op over `axes` (a constant int32 vector).
template <typename T>
Result<T> RunReduce(BuiltinOperator op, DataType type, const Shape& shape, const std::vector<T>& x,
                    const std::vector<int32_t>& axes, bool keep_dims, int threads = 1) {
  Result<T> r;
  SingleOpModel m;
  const int in = m.AddInput(type, shape);
  m.AddConstInput<int32_t>(DataType::kInt32, {static_cast<int32_t>(axes.size())}, axes);
  const int out = m.AddOutput(type);
  m.SetBuiltinOp(op, 1, tflite::BuiltinOptions::ReducerOptions, tflite::CreateReducerOptions(m.fbb(), keep_dims).Union());
  r.build = m.Build(threads);
  if (!r.build.ok()) return r;
  m.SetInput<T>(in, x);
  r.invoke = m.Invoke();
  if (!r.invoke.ok()) return r;
  r.shape = m.GetOutputShape(out);
  r.out = m.GetOutput<T>(out);
  return r;
}

// Reference: reduce `x` of `shape` over `axes` with `combine` from `init`.
template <typename T>
std::vector<T> RefReduce(const Shape& shape, const std::vector<T>& x, const std::vector<int32_t>& axes, T init,
                         const std::function<T(T, T)>& combine) {
  const int rank = static_cast<int>(shape.size());
  std::vector<bool> reduced(static_cast<size_t>(rank), false);
  for (int32_t a : axes) reduced[static_cast<size_t>(a < 0 ? a + rank : a)] = true;
  int64_t out_n = 1;
  for (int d = 0; d < rank; ++d) out_n *= reduced[static_cast<size_t>(d)] ? 1 : shape[static_cast<size_t>(d)];
  std::vector<T> out(static_cast<size_t>(out_n), init);
  std::vector<int64_t> idx(static_cast<size_t>(rank), 0);
  for (size_t i = 0; i < x.size(); ++i) {
    int64_t o = 0;
    for (int d = 0; d < rank; ++d) {
      if (!reduced[static_cast<size_t>(d)]) o = o * shape[static_cast<size_t>(d)] + idx[static_cast<size_t>(d)];
    }
    out[static_cast<size_t>(o)] = combine(out[static_cast<size_t>(o)], x[i]);
    for (int d = rank - 1; d >= 0; --d) {
      if (++idx[static_cast<size_t>(d)] < shape[static_cast<size_t>(d)]) break;
      idx[static_cast<size_t>(d)] = 0;
    }
  }
  return out;
}

struct ReduceCase {
  Shape shape;
  std::vector<int32_t> axes;
};
const std::vector<ReduceCase> kReduceCases = {
    {{2, 3, 4}, {1}}, {{2, 3, 4}, {0, 2}}, {{2, 3, 4}, {-1}}, {{5, 7}, {0}}, {{1, 8, 8, 6}, {1, 2}},
    {{3, 1000}, {1}}, {{2, 3, 4}, {0, 1, 2}}, {{4, 5}, {1, 1}},
};

TEST(ReduceMinTest, MatchesReference) {
  std::mt19937 rng(1);
  for (const ReduceCase& c : kReduceCases) {
    std::vector<float> x(static_cast<size_t>(NumElements(c.shape)));
    for (float& v : x) v = std::uniform_real_distribution<float>(-10, 10)(rng);
    for (bool keep : {false, true}) {
      SCOPED_TRACE(ShapeToString(c.shape) + (keep ? " keep" : ""));
      auto r = RunReduce<float>(BuiltinOperator::REDUCE_MIN, DataType::kFloat32, c.shape, x, c.axes, keep, 2);
      ASSERT_TRUE(r.build.ok() && r.invoke.ok()) << r.build.ToString() << r.invoke.ToString();
      EXPECT_EQ(r.out, RefReduce<float>(c.shape, x, c.axes, std::numeric_limits<float>::max(),
                                        [](float a, float b) { return b < a ? b : a; }));
    }
    std::vector<int64_t> xi(x.size());
    for (size_t i = 0; i < x.size(); ++i) xi[i] = static_cast<int64_t>(x[i] * 1e9);
    auto ri = RunReduce<int64_t>(BuiltinOperator::REDUCE_MIN, DataType::kInt64, c.shape, xi, c.axes, false);
    ASSERT_TRUE(ri.invoke.ok());
    EXPECT_EQ(ri.out, RefReduce<int64_t>(c.shape, xi, c.axes, std::numeric_limits<int64_t>::max(),
                                         [](int64_t a, int64_t b) { return std::min(a, b); }));
  }
}

TEST(ReduceMinTest, NaNIsSkippedAndEmptyGivesLargest) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  auto r = RunReduce<float>(BuiltinOperator::REDUCE_MIN, DataType::kFloat32, {2, 3}, {nan, 2, 1, 3, nan, nan}, {1}, false);
  ASSERT_TRUE(r.invoke.ok());
  EXPECT_EQ(r.out[0], 1.f);
  EXPECT_EQ(r.out[1], 3.f);
  auto e = RunReduce<int32_t>(BuiltinOperator::REDUCE_MIN, DataType::kInt32, {2, 0}, {}, {1}, false);
  ASSERT_TRUE(e.invoke.ok()) << e.invoke.ToString();
  EXPECT_EQ(e.out, (std::vector<int32_t>{INT32_MAX, INT32_MAX}));
}

TEST(ReduceProdTest, MatchesReferenceAndWraps) {
  std::mt19937 rng(2);
  for (const ReduceCase& c : kReduceCases) {
    if (NumElements(c.shape) > 200) continue;  // a float product of hundreds of values under/overflows
    std::vector<float> x(static_cast<size_t>(NumElements(c.shape)));
    for (float& v : x) v = std::uniform_real_distribution<float>(0.5f, 1.5f)(rng);
    SCOPED_TRACE(ShapeToString(c.shape));
    auto r = RunReduce<float>(BuiltinOperator::REDUCE_PROD, DataType::kFloat32, c.shape, x, c.axes, true);
    ASSERT_TRUE(r.invoke.ok()) << r.build.ToString() << r.invoke.ToString();
    const auto want = RefReduce<float>(c.shape, x, c.axes, 1.f, [](float a, float b) { return a * b; });
    ASSERT_EQ(r.out.size(), want.size());
    for (size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(r.out[i], want[i], 1e-5f * std::fabs(want[i])) << i;
  }
  // int32 products wrap as two's complement.
  std::vector<int32_t> big = {65536, 65536, 3, -7, 1 << 20, 4096};
  auto r = RunReduce<int32_t>(BuiltinOperator::REDUCE_PROD, DataType::kInt32, {3, 2}, big, {1}, false);
  ASSERT_TRUE(r.invoke.ok());
  EXPECT_EQ(r.out, (std::vector<int32_t>{0, -21, static_cast<int32_t>(static_cast<uint32_t>(1u << 20) * 4096u)}));
}

TEST(ReduceAnyAllTest, TruthTablesOverAxes) {
  const std::vector<uint8_t> x = {0, 0, 0, 1, 0, 2, 1, 1, 1, 0, 0, 0};  // [4,3]; 2 reads as true
  auto any = RunReduce<uint8_t>(BuiltinOperator::REDUCE_ANY, DataType::kBool, {4, 3}, x, {1}, false);
  ASSERT_TRUE(any.invoke.ok()) << any.build.ToString();
  EXPECT_EQ(any.out, (std::vector<uint8_t>{0, 1, 1, 0}));
  auto all = RunReduce<uint8_t>(BuiltinOperator::REDUCE_ALL, DataType::kBool, {4, 3}, x, {1}, false);
  ASSERT_TRUE(all.invoke.ok());
  EXPECT_EQ(all.out, (std::vector<uint8_t>{0, 0, 1, 0}));
  auto cols = RunReduce<uint8_t>(BuiltinOperator::REDUCE_ALL, DataType::kBool, {4, 3}, x, {0}, true);
  ASSERT_TRUE(cols.invoke.ok());
  EXPECT_EQ(cols.shape, (Shape{1, 3}));
  EXPECT_EQ(cols.out, (std::vector<uint8_t>{0, 0, 0}));
  // Empty reductions: any = false, all = true.
  auto e_any = RunReduce<uint8_t>(BuiltinOperator::REDUCE_ANY, DataType::kBool, {2, 0}, {}, {1}, false);
  auto e_all = RunReduce<uint8_t>(BuiltinOperator::REDUCE_ALL, DataType::kBool, {2, 0}, {}, {1}, false);
  ASSERT_TRUE(e_any.invoke.ok() && e_all.invoke.ok());
  EXPECT_EQ(e_any.out, (std::vector<uint8_t>{0, 0}));
  EXPECT_EQ(e_all.out, (std::vector<uint8_t>{1, 1}));
}

TEST(ReduceOpsTest, TypeErrors) {
  EXPECT_FALSE(RunReduce<float>(BuiltinOperator::REDUCE_ANY, DataType::kFloat32, {2}, {1, 0}, {0}, false).build.ok());
  const auto q = RunReduce<int8_t>(BuiltinOperator::REDUCE_MIN, DataType::kInt8, {2}, {1, 0}, {0}, false);
  ASSERT_FALSE(q.build.ok());
  // int8 is a quantized type: without quantization parameters it is refused.
  EXPECT_NE(q.build.message().find("quantized per tensor"), std::string::npos) << q.build.ToString();
  const auto b = RunReduce<uint8_t>(BuiltinOperator::REDUCE_PROD, DataType::kBool, {2}, {1, 0}, {0}, false);
  ASSERT_FALSE(b.build.ok());
  EXPECT_NE(b.build.message().find("bool"), std::string::npos) << b.build.ToString();
  const auto axis = RunReduce<float>(BuiltinOperator::REDUCE_MIN, DataType::kFloat32, {2}, {1, 0}, {3}, false);
  EXPECT_FALSE(axis.build.ok());
}

// ARG_MIN along `axis`, int32 or int64 indices.
template <typename T, typename Index>
Result<Index> RunArgMin(DataType type, const Shape& shape, const std::vector<T>& x, int32_t axis, DataType index_type) {
  Result<Index> r;
  SingleOpModel m;
  const int in = m.AddInput(type, shape);
  m.AddConstInput<int32_t>(DataType::kInt32, {1}, {axis});
  const int out = m.AddOutput(index_type);
  m.SetBuiltinOp(BuiltinOperator::ARG_MIN, 1, tflite::BuiltinOptions::ArgMinOptions,
                 tflite::CreateArgMinOptions(m.fbb(), static_cast<tflite::TensorType>(index_type)).Union());
  r.build = m.Build(2);
  if (!r.build.ok()) return r;
  m.SetInput<T>(in, x);
  r.invoke = m.Invoke();
  if (!r.invoke.ok()) return r;
  r.shape = m.GetOutputShape(out);
  r.out = m.GetOutput<Index>(out);
  return r;
}

TEST(ArgMinTest, FirstMinimumAlongEachAxis) {
  std::mt19937 rng(3);
  const Shape shape = {3, 5, 70};
  std::vector<int32_t> x(static_cast<size_t>(NumElements(shape)));
  for (int32_t& v : x) v = static_cast<int32_t>(rng() % 7);  // many ties: the first index must win
  for (int axis = -3; axis < 3; ++axis) {
    SCOPED_TRACE("axis " + std::to_string(axis));
    const int ax = axis < 0 ? axis + 3 : axis;
    auto r = RunArgMin<int32_t, int64_t>(DataType::kInt32, shape, x, axis, DataType::kInt64);
    ASSERT_TRUE(r.invoke.ok()) << r.build.ToString();
    int64_t outer = 1, inner = 1;
    for (int d = 0; d < ax; ++d) outer *= shape[static_cast<size_t>(d)];
    for (int d = ax + 1; d < 3; ++d) inner *= shape[static_cast<size_t>(d)];
    const int64_t n = shape[static_cast<size_t>(ax)];
    std::vector<int64_t> want;
    for (int64_t o = 0; o < outer; ++o) {
      for (int64_t i = 0; i < inner; ++i) {
        int64_t best = 0;
        for (int64_t k = 1; k < n; ++k) {
          if (x[static_cast<size_t>((o * n + k) * inner + i)] < x[static_cast<size_t>((o * n + best) * inner + i)]) best = k;
        }
        want.push_back(best);
      }
    }
    EXPECT_EQ(r.out, want);
  }
  const float nan = std::numeric_limits<float>::quiet_NaN();
  auto f = RunArgMin<float, int32_t>(DataType::kFloat32, {2, 3}, {nan, -1, 2, 4, nan, -5}, 1, DataType::kInt32);
  ASSERT_TRUE(f.invoke.ok());
  EXPECT_EQ(f.out, (std::vector<int32_t>{0, 2}));  // a NaN at index 0 is never beaten; elsewhere it never wins
}

// A last-axis op (LOG_SOFTMAX, L2_NORMALIZATION) on float input.
Result<float> RunLastAxis(BuiltinOperator op, const Shape& shape, const std::vector<float>& x, int threads = 1) {
  Result<float> r;
  SingleOpModel m;
  const int in = m.AddInput(DataType::kFloat32, shape);
  const int out = m.AddOutput(DataType::kFloat32);
  m.SetBuiltinOp(op, 1);
  r.build = m.Build(threads);
  if (!r.build.ok()) return r;
  m.SetInput<float>(in, x);
  r.invoke = m.Invoke();
  if (!r.invoke.ok()) return r;
  r.shape = m.GetOutputShape(out);
  r.out = m.GetOutput<float>(out);
  return r;
}

TEST(LogSoftmaxTest, MatchesReference) {
  std::mt19937 rng(4);
  for (const Shape& shape : {Shape{7}, Shape{3, 10}, Shape{2, 4, 1001}, Shape{5, 1}}) {
    std::vector<float> x(static_cast<size_t>(NumElements(shape)));
    for (float& v : x) v = std::uniform_real_distribution<float>(-50, 50)(rng);
    auto r = RunLastAxis(BuiltinOperator::LOG_SOFTMAX, shape, x, 2);
    ASSERT_TRUE(r.invoke.ok()) << r.build.ToString();
    const size_t depth = static_cast<size_t>(shape.back());
    for (size_t row = 0; row < x.size() / depth; ++row) {
      double m = -1e300, sum = 0;
      for (size_t i = 0; i < depth; ++i) m = std::max(m, static_cast<double>(x[row * depth + i]));
      for (size_t i = 0; i < depth; ++i) sum += std::exp(x[row * depth + i] - m);
      for (size_t i = 0; i < depth; ++i) {
        const double want = x[row * depth + i] - m - std::log(sum);
        EXPECT_NEAR(r.out[row * depth + i], want, 1e-5 * (1 + std::fabs(want))) << row << "," << i;
      }
    }
  }
  // Huge logits do not overflow.
  auto big = RunLastAxis(BuiltinOperator::LOG_SOFTMAX, {3}, {1000.f, 1000.f, -1000.f});
  ASSERT_TRUE(big.invoke.ok());
  EXPECT_NEAR(big.out[0], -std::log(2.f), 1e-6);
  EXPECT_TRUE(std::isinf(big.out[2]) || big.out[2] < -1999.f);
}

TEST(L2NormalizationTest, MatchesReferenceAndKeepsZeroRowsZero) {
  std::mt19937 rng(5);
  for (const Shape& shape : {Shape{5}, Shape{3, 17}, Shape{1, 4, 4, 33}}) {
    std::vector<float> x(static_cast<size_t>(NumElements(shape)));
    for (float& v : x) v = std::uniform_real_distribution<float>(-3, 3)(rng);
    auto r = RunLastAxis(BuiltinOperator::L2_NORMALIZATION, shape, x, 2);
    ASSERT_TRUE(r.invoke.ok()) << r.build.ToString();
    const size_t depth = static_cast<size_t>(shape.back());
    for (size_t row = 0; row < x.size() / depth; ++row) {
      double sq = 0;
      for (size_t i = 0; i < depth; ++i) sq += double(x[row * depth + i]) * x[row * depth + i];
      for (size_t i = 0; i < depth; ++i) EXPECT_NEAR(r.out[row * depth + i], x[row * depth + i] / std::sqrt(sq), 1e-6);
    }
  }
  auto zero = RunLastAxis(BuiltinOperator::L2_NORMALIZATION, {2, 2}, {0, 0, 3, 4});
  ASSERT_TRUE(zero.invoke.ok());
  EXPECT_EQ(zero.out, (std::vector<float>{0, 0, 0.6f, 0.8f}));
  EXPECT_FALSE(RunLastAxis(BuiltinOperator::L2_NORMALIZATION, {1, 1, 1, 1, 2}, {1, 2}).build.ok());  // rank 5
}

template <typename T>
Result<T> RunCumsum(DataType type, const Shape& shape, const std::vector<T>& x, int32_t axis, bool exclusive,
                    bool reverse, bool axis_const = true) {
  Result<T> r;
  SingleOpModel m;
  const int in = m.AddInput(type, shape);
  const int ax = axis_const ? m.AddConstInput<int32_t>(DataType::kInt32, {}, {axis}) : m.AddInput(DataType::kInt32, {});
  const int out = m.AddOutput(type);
  m.SetBuiltinOp(BuiltinOperator::CUMSUM, 1, tflite::BuiltinOptions::CumsumOptions,
                 tflite::CreateCumsumOptions(m.fbb(), exclusive, reverse).Union());
  r.build = m.Build(2);
  if (!r.build.ok()) return r;
  m.SetInput<T>(in, x);
  if (!axis_const) m.SetInput<int32_t>(ax, {axis});
  r.invoke = m.Invoke();
  if (!r.invoke.ok()) return r;
  r.shape = m.GetOutputShape(out);
  r.out = m.GetOutput<T>(out);
  return r;
}

TEST(CumsumTest, EveryAxisAndMode) {
  const Shape shape = {2, 3, 4};
  std::vector<int32_t> x(24);
  for (int i = 0; i < 24; ++i) x[static_cast<size_t>(i)] = i * 3 - 20;
  for (int axis = 0; axis < 3; ++axis) {
    for (bool exclusive : {false, true}) {
      for (bool reverse : {false, true}) {
        SCOPED_TRACE("axis " + std::to_string(axis) + (exclusive ? " exclusive" : "") + (reverse ? " reverse" : ""));
        auto r = RunCumsum<int32_t>(DataType::kInt32, shape, x, axis - (axis == 2 ? 3 : 0), exclusive, reverse);
        ASSERT_TRUE(r.invoke.ok()) << r.build.ToString() << r.invoke.ToString();
        std::vector<int32_t> want(24, 0);
        const int n = shape[static_cast<size_t>(axis)];
        int inner = 1;
        for (int d = axis + 1; d < 3; ++d) inner *= shape[static_cast<size_t>(d)];
        for (int i = 0; i < 24; ++i) {
          const int k = (i / inner) % n;
          const int base = i - k * inner;
          int32_t s = 0;
          for (int j = 0; j < n; ++j) {
            const bool in_sum = reverse ? (exclusive ? j > k : j >= k) : (exclusive ? j < k : j <= k);
            if (in_sum) s += x[static_cast<size_t>(base + j * inner)];
          }
          want[static_cast<size_t>(i)] = s;
        }
        EXPECT_EQ(r.out, want);
      }
    }
  }
}

TEST(CumsumTest, FloatRuntimeAxisAndErrors) {
  auto r = RunCumsum<float>(DataType::kFloat32, {2, 2}, {1.5f, 2.f, -1.f, 4.f}, 1, false, false, /*axis_const=*/false);
  ASSERT_TRUE(r.invoke.ok()) << r.build.ToString() << r.invoke.ToString();
  EXPECT_EQ(r.out, (std::vector<float>{1.5f, 3.5f, -1.f, 3.f}));
  // A runtime axis out of range fails at Invoke, naming it.
  auto bad = RunCumsum<float>(DataType::kFloat32, {2, 2}, {1, 2, 3, 4}, 2, false, false, false);
  ASSERT_TRUE(bad.build.ok());
  ASSERT_FALSE(bad.invoke.ok());
  EXPECT_NE(bad.invoke.message().find("axis 2 is out of range"), std::string::npos) << bad.invoke.ToString();
  EXPECT_FALSE(RunCumsum<float>(DataType::kFloat32, {2, 2}, {1, 2, 3, 4}, -3, false, false).build.ok());
  EXPECT_FALSE(RunCumsum<uint8_t>(DataType::kBool, {2}, {1, 0}, 0, false, false).build.ok());
}

}  // namespace
}  // namespace relite
