// Quantized BATCH_MATMUL (int8, int16x16, int8 -> int32): hand-computed
// products, a real-number reference over adjoints and broadcasts, and the
// errors a malformed model must give.
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "tests/testing/single_op_model.h"

namespace relite {
namespace {

Quantization Q(float scale, int64_t zero_point) {
  Quantization q;
  q.scale = {scale};
  q.zero_point = {zero_point};
  return q;
}

struct Operand {
  DataType type;
  Shape shape;
  Quantization q;
};

template <typename T, typename Out = T>
std::vector<Out> RunBmm(const Operand& x, const std::vector<T>& xd, const Operand& y, const std::vector<T>& yd,
                     DataType out_type, const Quantization& out_q, bool adj_x, bool adj_y, Shape* out_shape = nullptr,
                     Status* status = nullptr, int threads = 1) {
  testing::SingleOpModel m;
  const int a = m.AddInput(x.type, x.shape, x.q);
  const int b = m.AddInput(y.type, y.shape, y.q);
  const int o = m.AddOutput(out_type, {}, out_q);
  m.SetBuiltinOp(tflite::BuiltinOperator::BATCH_MATMUL, x.type == DataType::kInt16 ? 3 : 2,
                 tflite::BuiltinOptions::BatchMatMulOptions,
                 tflite::CreateBatchMatMulOptions(m.fbb(), adj_x, adj_y).Union());
  const Status built = m.Build(threads);
  if (status != nullptr) *status = built;
  if (!built.ok()) return {};
  m.SetInput<T>(a, xd);
  m.SetInput<T>(b, yd);
  EXPECT_TRUE(m.Invoke().ok());
  if (out_shape != nullptr) *out_shape = m.GetOutputShape(o);
  return m.GetOutput<Out>(o);
}

TEST(QuantizedBatchMatMulTest, Int8HandComputed) {
  // x = [[1, 2], [3, 4]] stored with zp 1, y = [[1, 0], [2, -1]] with zp -2:
  // x y = [[5, -2], [11, -4]]; scales 0.5 * 0.25 / 0.125 = 1, output zp 3.
  const Operand x{DataType::kInt8, {2, 2}, Q(0.5f, 1)};
  const Operand y{DataType::kInt8, {2, 2}, Q(0.25f, -2)};
  const auto out = RunBmm<int8_t>(x, {2, 3, 4, 5}, y, {-1, -2, 0, -3}, DataType::kInt8, Q(0.125f, 3), false, false);
  EXPECT_EQ(out, (std::vector<int8_t>{8, 1, 14, -1}));
  // Saturation: output scale 1/1024 multiplies by 128: 5 -> 643 -> 127, -2 -> -253 -> -128.
  const auto sat = RunBmm<int8_t>(x, {2, 3, 4, 5}, y, {-1, -2, 0, -3}, DataType::kInt8, Q(1.0f / 1024, 3), false, false);
  EXPECT_EQ(sat, (std::vector<int8_t>{127, -128, 127, -128}));
}

TEST(QuantizedBatchMatMulTest, Int8ToInt32IsTheRawSum) {
  // TFLite's int8 -> int32 product ignores the zero points.
  const Operand x{DataType::kInt8, {1, 3}, Q(0.5f, 7)};
  const Operand y{DataType::kInt8, {3, 2}, Q(0.5f, -7)};
  const auto out = RunBmm<int8_t, int32_t>(x, {1, 2, 3}, y, {1, 2, 3, 4, 5, 6}, DataType::kInt32, {}, false, false);
  EXPECT_EQ(out, (std::vector<int32_t>{22, 28}));
}

// Random operands against the real-number product: within one output step.
template <typename T>
void CheckAgainstReal(DataType type, uint32_t seed) {
  std::mt19937 rng(seed);
  const bool i16 = type == DataType::kInt16;
  const int lo = i16 ? -32768 : -128, hi = i16 ? 32767 : 127;
  std::uniform_int_distribution<int> value(lo, hi), zp(i16 ? 0 : -20, i16 ? 0 : 20);
  struct Case {
    Shape x, y;
    bool adj_x, adj_y;
  };
  const std::vector<Case> cases = {{{2, 3, 5}, {2, 5, 4}, false, false},
                                   {{2, 1, 5, 3}, {3, 4, 5}, true, true},
                                   {{4, 7}, {3, 7, 2}, false, false},
                                   {{3, 6, 2}, {2, 6}, true, true},
                                   {{2, 64, 70}, {70, 40}, false, false}};
  for (const Case& c : cases) {
    const int m = c.adj_x ? static_cast<int>(c.x.back()) : static_cast<int>(c.x[c.x.size() - 2]);
    const int k = c.adj_x ? static_cast<int>(c.x[c.x.size() - 2]) : static_cast<int>(c.x.back());
    const int n = c.adj_y ? static_cast<int>(c.y[c.y.size() - 2]) : static_cast<int>(c.y.back());
    size_t nx = 1, ny = 1;
    for (int64_t d : c.x) nx *= static_cast<size_t>(d);
    for (int64_t d : c.y) ny *= static_cast<size_t>(d);
    std::vector<T> xd(nx), yd(ny);
    for (T& v : xd) v = static_cast<T>(value(rng));
    for (T& v : yd) v = static_cast<T>(value(rng));
    const int zx = zp(rng), zy = zp(rng), zo = zp(rng);
    const float sx = 0.01f, sy = 0.02f, so = (i16 ? 20.0f : 0.02f) * std::sqrt(static_cast<float>(k));
    const Operand x{type, c.x, Q(sx, zx)}, y{type, c.y, Q(sy, zy)};
    Shape out_shape;
    // The larger case also runs on three threads (rows split between them).
    const int threads = nx > 1000 ? 3 : 1;
    const auto out = RunBmm<T>(x, xd, y, yd, type, Q(so, zo), c.adj_x, c.adj_y, &out_shape, nullptr, threads);
    ASSERT_FALSE(out.empty());
    // Batch broadcast over the leading dimensions, right-aligned.
    const size_t rank = out_shape.size();
    const Shape xb(c.x.begin(), c.x.end() - 2), yb(c.y.begin(), c.y.end() - 2);
    size_t batches = out.size() / static_cast<size_t>(m * n);
    for (size_t b = 0; b < batches; ++b) {
      size_t rest = b, xi = 0, yi = 0, xs = 1, ys = 1;
      for (int d = static_cast<int>(rank) - 3; d >= 0; --d) {
        const size_t ext = static_cast<size_t>(out_shape[static_cast<size_t>(d)]);
        const size_t coord = rest % ext;
        rest /= ext;
        const int xd_i = d - static_cast<int>(rank - 2 - xb.size()), yd_i = d - static_cast<int>(rank - 2 - yb.size());
        if (xd_i >= 0) {
          const size_t e = static_cast<size_t>(xb[static_cast<size_t>(xd_i)]);
          xi += (e == 1 ? 0 : coord) * xs;
          xs *= e;
        }
        if (yd_i >= 0) {
          const size_t e = static_cast<size_t>(yb[static_cast<size_t>(yd_i)]);
          yi += (e == 1 ? 0 : coord) * ys;
          ys *= e;
        }
      }
      for (int i = 0; i < m; ++i) {
        for (int j = 0; j < n; ++j) {
          double acc = 0;
          for (int p = 0; p < k; ++p) {
            const size_t xo = xi * static_cast<size_t>(m * k) + (c.adj_x ? static_cast<size_t>(p * m + i) : static_cast<size_t>(i * k + p));
            const size_t yo = yi * static_cast<size_t>(k * n) + (c.adj_y ? static_cast<size_t>(j * k + p) : static_cast<size_t>(p * n + j));
            acc += (static_cast<double>(xd[xo]) - zx) * (static_cast<double>(yd[yo]) - zy);
          }
          const double want = std::min<double>(hi, std::max<double>(lo, acc * sx * sy / so + zo));
          const T got = out[b * static_cast<size_t>(m * n) + static_cast<size_t>(i * n + j)];
          EXPECT_LE(std::fabs(got - want), 1.0) << "batch " << b << " (" << i << ", " << j << ")";
        }
      }
    }
  }
}

TEST(QuantizedBatchMatMulTest, Int8MatchesRealProduct) { CheckAgainstReal<int8_t>(DataType::kInt8, 1); }
TEST(QuantizedBatchMatMulTest, Int16MatchesRealProduct) { CheckAgainstReal<int16_t>(DataType::kInt16, 2); }

TEST(QuantizedBatchMatMulTest, Errors) {
  const std::vector<int16_t> d(4, 1);
  Status s;
  // int16 needs zero points 0.
  RunBmm<int16_t>({DataType::kInt16, {2, 2}, Q(0.1f, 1)}, d, {DataType::kInt16, {2, 2}, Q(0.1f, 0)}, d,
               DataType::kInt16, Q(0.1f, 0), false, false, nullptr, &s);
  EXPECT_NE(s.ToString().find("zero point"), std::string::npos) << s.ToString();
  // Mixed operand types.
  RunBmm<int16_t>({DataType::kInt16, {2, 2}, Q(0.1f, 0)}, d, {DataType::kInt8, {2, 4}, Q(0.1f, 0)}, d, DataType::kInt16,
               Q(0.1f, 0), false, false, nullptr, &s);
  EXPECT_NE(s.ToString().find("rhs type"), std::string::npos) << s.ToString();
  // Per-channel rhs.
  Quantization pc;
  pc.scale = {0.1f, 0.2f};
  pc.zero_point = {0, 0};
  const std::vector<int8_t> e(4, 1);
  RunBmm<int8_t>({DataType::kInt8, {2, 2}, Q(0.1f, 0)}, e, {DataType::kInt8, {2, 2}, pc}, e, DataType::kInt8, Q(0.1f, 0),
              false, false, nullptr, &s);
  EXPECT_NE(s.ToString().find("per tensor"), std::string::npos) << s.ToString();
  // Inner dimensions.
  RunBmm<int8_t>({DataType::kInt8, {2, 2}, Q(0.1f, 0)}, e, {DataType::kInt8, {1, 4}, Q(0.1f, 0)}, e, DataType::kInt8,
              Q(0.1f, 0), false, false, nullptr, &s);
  EXPECT_NE(s.ToString().find("inner dimensions"), std::string::npos) << s.ToString();
  // uint8 is not a TFLite BATCH_MATMUL type.
  const std::vector<uint8_t> u(4, 1);
  RunBmm<uint8_t>({DataType::kUInt8, {2, 2}, Q(0.1f, 0)}, u, {DataType::kUInt8, {2, 2}, Q(0.1f, 0)}, u,
               DataType::kUInt8, Q(0.1f, 0), false, false, nullptr, &s);
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.ToString().find("uint8"), std::string::npos) << s.ToString();
}

}  // namespace
}  // namespace relite
