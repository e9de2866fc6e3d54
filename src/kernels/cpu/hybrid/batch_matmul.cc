// Hybrid BATCH_MATMUL: float lhs [..., M, K], constant int8 rhs [..., K, N]
// (or [..., N, K] under adj_y) with one scale, float output. As TFLite's
// EvalHybrid, every lhs row of K values (after adj_x's transpose) is
// quantized on its own, symmetric or, under asymmetric_quantize_inputs,
// asymmetric (internal/hybrid.h), and out = float(sum (q - z) * w) *
// (row scale * rhs scale). The integer products run on the float
// BATCH_MATMUL kernel over integer-valued floats (exact below 2^24).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "src/core/ops/options.h"
#include "src/kernels/cpu/internal/broadcast.h"
#include "src/kernels/cpu/internal/elementwise.h"
#include "src/kernels/cpu/internal/hybrid.h"

namespace relite::cpu {
namespace {

class HybridBatchMatMulKernel final : public Kernel {
 public:
  HybridBatchMatMulKernel(bool adj_x, bool adj_y, bool asymmetric)
      : adj_x_(adj_x), asymmetric_(asymmetric), inner_(MakeFloatBatchMatMul(false, adj_y)) {}

  Status Prepare(KernelContext& ctx) override {
    RELITE_RETURN_IF_ERROR(CheckArity(ctx, 2, 1));
    const Tensor& x = ctx.input(0);
    const Tensor& y = ctx.input(1);
    RELITE_RETURN_IF_ERROR(CheckType(ctx, x, "lhs", DataType::kFloat32));
    RELITE_RETURN_IF_ERROR(CheckType(ctx, y, "rhs", DataType::kInt8));
    RELITE_RETURN_IF_ERROR(CheckOutputType(ctx, 0, DataType::kFloat32));
    if (!y.is_constant() || y.data == nullptr) return ctx.Unsupported("hybrid int8 rhs must be constant");
    if (y.quant.scale.size() != 1) {
      return ctx.Unsupported("hybrid rhs needs one (per-tensor) scale, as TFLite reads; got " +
                             std::to_string(y.quant.scale.size()));
    }
    if (!(y.quant.scale[0] > 0.f) || !std::isfinite(y.quant.scale[0])) {
      return ctx.Error("rhs scale must be positive and finite");
    }
    if (!y.quant.zero_point.empty() && y.quant.zero_point[0] != 0) {
      return ctx.Unsupported("hybrid rhs must be symmetric (zero point 0)");
    }
    if (x.rank() < 2 || y.rank() < 2) {
      return ctx.Error("operands must have rank >= 2, got " + ShapeToString(x.shape) + " and " + ShapeToString(y.shape));
    }
    rhs_scale_ = y.quant.scale[0];
    const int xr = x.rank();
    m_ = adj_x_ ? x.dim(xr - 1) : x.dim(xr - 2);
    k_ = adj_x_ ? x.dim(xr - 2) : x.dim(xr - 1);
    lhs_matrices_ = m_ * k_ > 0 ? x.num_elements() / (static_cast<int64_t>(m_) * k_) : 0;

    // The integer weights as floats, once per rhs tensor.
    if (weights_from_ != y.data || weights_.shape != y.shape) {
      const int64_t n = y.num_elements();
      weights_.type = DataType::kFloat32;
      weights_.shape = y.shape;
      weights_.name = y.name + " (int8 values)";
      weights_.owned = std::shared_ptr<uint8_t>(new (std::nothrow) uint8_t[static_cast<size_t>(n) * sizeof(float) + 1],
                                                std::default_delete<uint8_t[]>());
      if (!weights_.owned) return InternalError(ctx.node().Describe() + ": out of memory converting rhs");
      weights_.data = weights_.owned.get();
      weights_.bytes = static_cast<size_t>(n) * sizeof(float);
      weights_.allocation = Allocation::kPersistent;
      const int8_t* q = y.data_as<int8_t>();
      float* f = weights_.data_as<float>();
      for (int64_t i = 0; i < n; ++i) f[i] = static_cast<float>(q[i]);
      weights_from_ = y.data;
    }
    // The quantized lhs, rows of K (adj_x transposed here).
    quantized_.type = DataType::kFloat32;
    quantized_.shape = x.shape;
    quantized_.shape[static_cast<size_t>(xr - 2)] = m_;
    quantized_.shape[static_cast<size_t>(xr - 1)] = k_;
    quantized_.name = x.name + " (quantized)";
    buffer_.resize(static_cast<size_t>(x.num_elements()) + 1);
    row_.resize(static_cast<size_t>(std::max(k_, 0)) + 1);
    quantized_.data = buffer_.data();
    quantized_.bytes = static_cast<size_t>(x.num_elements()) * sizeof(float);
    quantized_.allocation = Allocation::kArena;
    row_scales_.resize(static_cast<size_t>(lhs_matrices_ * std::max(m_, 0)) + 1);

    SubstitutedContext inner(ctx, &quantized_, &weights_);
    RELITE_RETURN_IF_ERROR(inner_->Prepare(inner));

    // Which lhs matrix each output matrix multiplies (batch broadcast).
    const Shape& out = ctx.output(0).shape;
    const Shape xb(x.shape.begin(), x.shape.end() - 2);
    const Shape ob(out.begin(), out.end() - 2);
    const int64_t out_matrices = NumElements(ob);
    lhs_of_.assign(static_cast<size_t>(out_matrices), 0);
    for (int64_t o = 0; o < out_matrices; ++o) {
      int64_t rest = o, index = 0, stride = 1;
      for (int d = static_cast<int>(ob.size()) - 1; d >= 0; --d) {
        const int64_t coord = rest % ob[static_cast<size_t>(d)];
        rest /= ob[static_cast<size_t>(d)];
        const int xd = d - (static_cast<int>(ob.size()) - static_cast<int>(xb.size()));
        if (xd < 0) continue;
        const int64_t extent = xb[static_cast<size_t>(xd)];
        index += (extent == 1 ? 0 : coord) * stride;
        stride *= extent;
      }
      lhs_of_[static_cast<size_t>(o)] = index;
    }
    n_ = out.back();
    return Status::Ok();
  }

  Status Eval(KernelContext& ctx) override {
    const float* x = ctx.input(0).data_as<float>();
    float* q = buffer_.data();
    for (int64_t b = 0; b < lhs_matrices_; ++b) {
      const float* xm = x + static_cast<size_t>(b) * m_ * k_;
      for (int m = 0; m < m_; ++m) {
        const float* row = xm + static_cast<size_t>(m) * k_;
        if (adj_x_) {  // x[b] is [K][M]: row m is column m
          for (int k = 0; k < k_; ++k) row_[static_cast<size_t>(k)] = xm[static_cast<size_t>(k) * m_ + m];
          row = row_.data();
        }
        float* qr = q + (static_cast<size_t>(b) * m_ + m) * k_;
        const float s = asymmetric_ ? QuantizeAsymmetricAsFloats(row, k_, qr) : QuantizeSymmetricAsFloats(row, k_, qr);
        row_scales_[static_cast<size_t>(b * m_ + m)] = s * rhs_scale_;
      }
    }
    SubstitutedContext inner(ctx, &quantized_, &weights_);
    RELITE_RETURN_IF_ERROR(inner_->Eval(inner));
    float* out = ctx.output(0).data_as<float>();
    for (size_t o = 0; o < lhs_of_.size(); ++o) {
      for (int m = 0; m < m_; ++m) {
        const float s = row_scales_[static_cast<size_t>(lhs_of_[o] * m_ + m)];
        float* r = out + (o * static_cast<size_t>(m_) + static_cast<size_t>(m)) * static_cast<size_t>(n_);
        for (int j = 0; j < n_; ++j) r[j] = 0.f + r[j] * s;  // TFLite adds to 0: no -0
      }
    }
    return Status::Ok();
  }

 private:
  bool adj_x_, asymmetric_;
  std::unique_ptr<Kernel> inner_;
  float rhs_scale_ = 1.f;
  int m_ = 0, k_ = 0, n_ = 0;
  int64_t lhs_matrices_ = 0;
  Tensor weights_;    // integer-valued float copy of rhs (persistent)
  Tensor quantized_;  // q - z of the lhs rows, [..., M, K]
  std::vector<float> buffer_, row_, row_scales_;
  std::vector<int64_t> lhs_of_;
  const void* weights_from_ = nullptr;
};

}  // namespace

StatusOr<std::unique_ptr<Kernel>> CreateHybridBatchMatMul(const Node& node) {
  const auto* o = GetOptions<tflite::BatchMatMulOptions>(node);
  return std::unique_ptr<Kernel>(std::make_unique<HybridBatchMatMulKernel>(o && o->adj_x(), o && o->adj_y(),
                                                                           o && o->asymmetric_quantize_inputs()));
}

}  // namespace relite::cpu
