// BATCH_MATMUL (float32) against a plain triple loop: adj_x/adj_y, broadcast
// batch dimensions, constant and runtime rhs, the matrix-vector path, threads.
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "tests/testing/single_op_model.h"

namespace relite {
namespace {

using testing::SingleOpModel;

struct MatMulCase {
  Shape x, y;
  bool adj_x = false, adj_y = false;
};

std::string Describe(const MatMulCase& c) {
  return ShapeToString(c.x) + (c.adj_x ? "^T" : "") + " x " + ShapeToString(c.y) + (c.adj_y ? "^T" : "");
}

// out[b][i][j] = sum_k X(b, i, k) * Y(b, k, j), batch dims broadcast.
std::vector<float> Reference(const MatMulCase& c, const std::vector<float>& x, const std::vector<float>& y, Shape* out_shape) {
  const int xr = static_cast<int>(c.x.size()), yr = static_cast<int>(c.y.size());
  const int m = c.adj_x ? c.x[xr - 1] : c.x[xr - 2], k = c.adj_x ? c.x[xr - 2] : c.x[xr - 1];
  const int n = c.adj_y ? c.y[yr - 2] : c.y[yr - 1];
  const int br = std::max(xr, yr) - 2;
  Shape batch(static_cast<size_t>(br));
  for (int d = 0; d < br; ++d) {
    const int xd = d - (br - (xr - 2)), yd = d - (br - (yr - 2));
    const int xe = xd >= 0 ? c.x[static_cast<size_t>(xd)] : 1, ye = yd >= 0 ? c.y[static_cast<size_t>(yd)] : 1;
    batch[static_cast<size_t>(d)] = std::max(xe, ye);
  }
  *out_shape = batch;
  out_shape->push_back(m);
  out_shape->push_back(n);
  const int64_t batches = NumElements(batch);
  std::vector<float> out(static_cast<size_t>(batches * m * n));
  for (int64_t b = 0; b < batches; ++b) {
    int64_t rest = b, xi = 0, yi = 0, xs = 1, ys = 1;
    for (int d = br - 1; d >= 0; --d) {
      const int64_t coord = rest % batch[static_cast<size_t>(d)];
      rest /= batch[static_cast<size_t>(d)];
      const int xd = d - (br - (xr - 2)), yd = d - (br - (yr - 2));
      if (xd >= 0) { const int e = c.x[static_cast<size_t>(xd)]; xi += (e == 1 ? 0 : coord) * xs; xs *= e; }
      if (yd >= 0) { const int e = c.y[static_cast<size_t>(yd)]; yi += (e == 1 ? 0 : coord) * ys; ys *= e; }
    }
    const float* xm = x.data() + xi * m * k;
    const float* ym = y.data() + yi * k * n;
    for (int i = 0; i < m; ++i) {
      for (int j = 0; j < n; ++j) {
        double s = 0;
        for (int q = 0; q < k; ++q) {
          const float a = c.adj_x ? xm[q * m + i] : xm[i * k + q];
          const float w = c.adj_y ? ym[j * k + q] : ym[q * n + j];
          s += static_cast<double>(a) * w;
        }
        out[static_cast<size_t>((b * m + i) * n + j)] = static_cast<float>(s);
      }
    }
  }
  return out;
}

void Check(const MatMulCase& c, bool y_const, int threads) {
  SCOPED_TRACE(Describe(c) + (y_const ? " const rhs" : " runtime rhs") + " threads " + std::to_string(threads));
  std::mt19937 rng(static_cast<uint32_t>(NumElements(c.x) * 31 + NumElements(c.y)));
  std::vector<float> x(static_cast<size_t>(NumElements(c.x))), y(static_cast<size_t>(NumElements(c.y)));
  for (float& v : x) v = std::uniform_real_distribution<float>(-1, 1)(rng);
  for (float& v : y) v = std::uniform_real_distribution<float>(-1, 1)(rng);
  SingleOpModel m;
  const int ix = m.AddInput(DataType::kFloat32, c.x);
  const int iy = y_const ? m.AddConstInput<float>(DataType::kFloat32, c.y, y) : m.AddInput(DataType::kFloat32, c.y);
  const int out = m.AddOutput(DataType::kFloat32);
  m.SetBuiltinOp(tflite::BuiltinOperator::BATCH_MATMUL, 1, tflite::BuiltinOptions::BatchMatMulOptions,
                 tflite::CreateBatchMatMulOptions(m.fbb(), c.adj_x, c.adj_y).Union());
  const Status built = m.Build(threads);
  ASSERT_TRUE(built.ok()) << built.ToString();
  m.SetInput<float>(ix, x);
  if (!y_const) m.SetInput<float>(iy, y);
  const Status run = m.Invoke();
  ASSERT_TRUE(run.ok()) << run.ToString();
  Shape want_shape;
  const std::vector<float> want = Reference(c, x, y, &want_shape);
  EXPECT_EQ(m.GetOutputShape(out), want_shape);
  const std::vector<float> got = m.GetOutput<float>(out);
  ASSERT_EQ(got.size(), want.size());
  const int k = c.adj_x ? c.x[c.x.size() - 2] : c.x.back();
  int bad = 0;
  for (size_t i = 0; i < got.size() && bad < 5; ++i) {
    if (std::fabs(got[i] - want[i]) > 1e-5f * k + 1e-5f * std::fabs(want[i])) {
      ADD_FAILURE() << "[" << i << "] got " << got[i] << " want " << want[i];
      ++bad;
    }
  }
}

TEST(BatchMatMulTest, ShapesAdjointsAndBroadcasts) {
  const std::vector<MatMulCase> cases = {
      {{3, 4}, {4, 5}},
      {{2, 7, 9}, {2, 9, 33}},
      {{2, 7, 9}, {2, 33, 9}, false, true},
      {{2, 9, 7}, {2, 9, 33}, true, false},
      {{2, 9, 7}, {2, 33, 9}, true, true},
      {{4, 1, 6, 8}, {3, 8, 5}},        // batch [4,1] x [3] -> [4,3]
      {{1, 20, 16}, {5, 16, 18}},       // lhs broadcast
      {{6, 20, 16}, {16, 18}},          // rhs broadcast (rank 2)
      {{1, 1, 64}, {1, 40, 64}, false, true},  // one row, rhs [N][K]: matrix-vector
      {{2, 1, 64}, {2, 64, 40}},        // one row, rhs [K][N]: packed
      {{2, 2, 2, 50, 30}, {2, 2, 2, 30, 20}},  // rank 5
      {{2, 0, 4}, {2, 4, 3}},           // empty
  };
  for (const MatMulCase& c : cases) {
    for (bool y_const : {false, true}) Check(c, y_const, 1);
  }
  Check({{3, 96, 80}, {3, 80, 72}}, false, 2);
  Check({{3, 96, 80}, {3, 72, 80}, false, true}, true, 2);
}

TEST(BatchMatMulTest, Errors) {
  auto build = [](DataType tx, const Shape& x, DataType ty, const Shape& y) {
    SingleOpModel m;
    m.AddInput(tx, x);
    m.AddInput(ty, y);
    m.AddOutput(DataType::kFloat32);
    m.SetBuiltinOp(tflite::BuiltinOperator::BATCH_MATMUL, 1);
    return m.Build();
  };
  EXPECT_NE(build(DataType::kFloat32, {2, 3}, DataType::kFloat32, {4, 5}).message().find("inner dimensions differ"),
            std::string::npos);
  EXPECT_NE(build(DataType::kFloat32, {2, 2, 3}, DataType::kFloat32, {3, 3, 5}).message().find("do not broadcast"),
            std::string::npos);
  EXPECT_FALSE(build(DataType::kFloat32, {3}, DataType::kFloat32, {3, 5}).ok());
  // int8 operands go to the quantized kernel (here: a float output it refuses);
  // hybrid (float lhs, int8 rhs) is not implemented.
  const Status q = build(DataType::kInt8, {2, 3}, DataType::kInt8, {3, 5});
  EXPECT_FALSE(q.ok());
  EXPECT_NE(q.message().find("int8"), std::string::npos) << q.ToString();
  const Status h = build(DataType::kFloat32, {2, 3}, DataType::kInt8, {3, 5});
  EXPECT_EQ(h.code(), StatusCode::kUnimplemented) << h.ToString();
  EXPECT_FALSE(build(DataType::kInt32, {2, 3}, DataType::kInt32, {3, 5}).ok());
}

}  // namespace
}  // namespace relite
