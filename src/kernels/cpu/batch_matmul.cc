// BATCH_MATMUL (float32): out[b] = op(x[b]) * op(y[b]) with op = transpose
// under adj_x / adj_y, x [..., M, K], y [..., K, N], batch dimensions
// broadcast (numpy rules, rank up to 5 as in TFLite). Each batch is one
// product on the shared GEMM: y's [N][K] view is packed into column panels
// (once at Prepare when y is constant, per run otherwise), x is read in place
// (or transposed into scratch under adj_x). A single row with y already in
// [N][K] form (adj_y) is a matrix-vector product, which needs no packing.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "src/core/ops/options.h"
#include "src/kernels/cpu/internal/batch_matmul_shape.h"
#include "src/kernels/cpu/internal/elementwise.h"
#include "src/kernels/cpu/internal/gemm.h"
#include "src/kernels/cpu/internal/hybrid.h"
#include "src/kernels/cpu/kernels.h"

namespace relite::cpu {
namespace {


// dst[c][r] = src[r][c] for a rows x cols matrix.
void Transpose(const float* src, int rows, int cols, float* dst) {
  constexpr int kBlock = 32;
  for (int r0 = 0; r0 < rows; r0 += kBlock) {
    for (int c0 = 0; c0 < cols; c0 += kBlock) {
      const int r1 = std::min(rows, r0 + kBlock), c1 = std::min(cols, c0 + kBlock);
      for (int r = r0; r < r1; ++r) {
        for (int c = c0; c < c1; ++c) dst[static_cast<size_t>(c) * rows + r] = src[static_cast<size_t>(r) * cols + c];
      }
    }
  }
}

class BatchMatMulKernel final : public Kernel {
 public:
  BatchMatMulKernel(bool adj_x, bool adj_y) : adj_x_(adj_x), adj_y_(adj_y) {}

  Status Prepare(KernelContext& ctx) override {
    RELITE_RETURN_IF_ERROR(CheckArity(ctx, 2, 1));
    const Tensor& x = ctx.input(0);
    const Tensor& y = ctx.input(1);
    for (const Tensor* t : {&x, &y}) {
      if (t->type == DataType::kFloat32) continue;
      if (IsQuantizedStorageType(t->type)) {
        return ctx.Unsupported(std::string(t == &x ? "lhs" : "rhs") + " of type " + DataTypeName(t->type) +
                               " (quantized BATCH_MATMUL) is not supported yet");
      }
      return ctx.Error(std::string(t == &x ? "lhs" : "rhs") + " type " + DataTypeName(t->type) +
                       " is not supported (float32)");
    }
    RELITE_RETURN_IF_ERROR(CheckOutputType(ctx, 0, DataType::kFloat32));
    BatchMatMulShape plan;
    RELITE_RETURN_IF_ERROR(PlanBatchMatMul(ctx, x, y, adj_x_, adj_y_, &plan));
    m_ = plan.m;
    n_ = plan.n;
    k_ = plan.k;
    x_index_ = std::move(plan.x_index);
    y_index_ = std::move(plan.y_index);
    y_matrices_ = plan.y_matrices;
    RELITE_RETURN_IF_ERROR(ctx.ResizeOutput(0, plan.output));
    const size_t batches = x_index_.size();
    if (batches == 0 || m_ == 0 || n_ == 0) return Status::Ok();

    gemv_ = m_ == 1 && adj_y_;  // y is already [N][K]: read as it is
    y_constant_ = y.is_constant() && y.data != nullptr;
    const size_t packed = PackedWeightsSize(n_, k_);
    size_t scratch = 0;
    if (adj_x_) scratch += static_cast<size_t>(m_) * k_ * sizeof(float) + 64;
    if (!gemv_) {
      if (y_constant_) {
        PackAll(y);
        if (packed_.data() == nullptr) return InternalError(ctx.node().Describe() + ": out of memory packing rhs");
      } else {
        scratch += packed * sizeof(float) + 64;
        if (!adj_y_) scratch += static_cast<size_t>(n_) * k_ * sizeof(float) + 64;
      }
    }
    if (scratch > 0) ctx.RequestScratch(scratch);
    return Status::Ok();
  }

  Status Eval(KernelContext& ctx) override {
    const size_t batches = x_index_.size();
    if (batches == 0 || m_ == 0 || n_ == 0) return Status::Ok();
    const float* x = ctx.input(0).data_as<float>();
    const float* y = ctx.input(1).data_as<float>();
    float* out = ctx.output(0).data_as<float>();
    const size_t x_matrix = static_cast<size_t>(m_) * k_, y_matrix = static_cast<size_t>(k_) * n_;
    const size_t packed_floats = PackedWeightsSize(n_, k_);
    // Scratch: [x transposed][y packed][y transposed], each 64-byte aligned.
    char* cursor = static_cast<char*>(ctx.scratch());
    auto take = [&](size_t floats) {
      float* p = AlignFloats64(cursor);
      cursor = reinterpret_cast<char*>(p + floats);
      return p;
    };
    float* x_t = adj_x_ ? take(x_matrix) : nullptr;
    float* y_packed = !gemv_ && !y_constant_ ? take(packed_floats) : nullptr;
    float* y_t = !gemv_ && !y_constant_ && !adj_y_ ? take(y_matrix) : nullptr;
    const GemmEpilogue none{};
    int64_t packed_for = -1;
    for (size_t b = 0; b < batches; ++b) {
      const float* a = x + static_cast<size_t>(x_index_[b]) * x_matrix;
      if (adj_x_) {
        Transpose(a, k_, m_, x_t);  // x[b] is [K][M]
        a = x_t;
      }
      float* c = out + b * static_cast<size_t>(m_) * n_;
      const float* w = y + static_cast<size_t>(y_index_[b]) * y_matrix;
      if (gemv_) {
        ParallelGemv(ctx, n_, k_, w, static_cast<size_t>(k_), a, none, c);
        continue;
      }
      const float* panels;
      if (y_constant_) {
        panels = packed_.data() + static_cast<size_t>(y_index_[b]) * packed_floats;
      } else {
        if (packed_for != y_index_[b]) {  // broadcast rhs: pack once for consecutive batches
          if (!adj_y_) {
            Transpose(w, k_, n_, y_t);  // y[b] is [K][N]
            w = y_t;
          }
          PackWeights(w, n_, k_, static_cast<size_t>(k_), y_packed);
          packed_for = y_index_[b];
        }
        panels = y_packed;
      }
      ParallelGemmPacked(ctx, m_, n_, k_, a, static_cast<size_t>(k_), panels, none, c, static_cast<size_t>(n_));
    }
    return Status::Ok();
  }

 private:
  // Packs every rhs matrix once (a constant rhs).
  void PackAll(const Tensor& y) {
    const size_t per = PackedWeightsSize(n_, k_);
    if (packed_from_ == y.data && packed_.size() == per * static_cast<size_t>(y_matrices_)) return;
    packed_.Resize(per * static_cast<size_t>(y_matrices_));
    if (packed_.data() == nullptr) return;
    std::vector<float> t(adj_y_ ? 0 : static_cast<size_t>(n_) * k_);
    for (int64_t i = 0; i < y_matrices_; ++i) {
      const float* w = y.data_as<float>() + static_cast<size_t>(i) * k_ * n_;
      if (!adj_y_) {
        Transpose(w, k_, n_, t.data());
        w = t.data();
      }
      PackWeights(w, n_, k_, static_cast<size_t>(k_), packed_.data() + static_cast<size_t>(i) * per);
    }
    packed_from_ = y.data;
  }

  bool adj_x_, adj_y_;
  int m_ = 0, n_ = 0, k_ = 0;
  std::vector<int64_t> x_index_, y_index_;
  int64_t y_matrices_ = 0;
  bool gemv_ = false, y_constant_ = false;
  AlignedFloatBuffer packed_;
  const void* packed_from_ = nullptr;
};

}  // namespace

std::unique_ptr<Kernel> MakeFloatBatchMatMul(bool adj_x, bool adj_y) {
  return std::make_unique<BatchMatMulKernel>(adj_x, adj_y);
}

StatusOr<std::unique_ptr<Kernel>> CreateBatchMatMul(const Node& node) {
  if (IsHybridNode(node)) return CreateHybridBatchMatMul(node);
  const auto* o = GetOptions<tflite::BatchMatMulOptions>(node);
  return std::unique_ptr<Kernel>(std::make_unique<BatchMatMulKernel>(o && o->adj_x(), o && o->adj_y()));
}

}  // namespace relite::cpu
