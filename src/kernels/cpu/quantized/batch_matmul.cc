// Quantized BATCH_MATMUL as TFLite's builtin kernel computes it (XNNPACK's
// delegate leaves quantized BATCH_MATMUL to it):
//  - int8 x int8 -> int8 (per-tensor): acc = sum (x - zx) (y - zy) in int32,
//    out = clamp(zo + MultiplyByQuantizedMultiplier(acc, Q31(sx * sy / so)));
//  - int8 x int8 -> int32: the raw sum of products (TFLite ignores the zero
//    points here);
//  - int16 x int16 -> int16 (zero points 0): acc in int64, TFLite's 64-bit
//    multiplier (as in the 16x8 FULLY_CONNECTED).
// No fused activation: the output's whole range. Batch dimensions broadcast
// as in the float kernel; adj_x / adj_y transpose the last two dimensions.
// Each product reads both operands as int16 rows of K values (x - zx and
// y - zy, which fit int16 for 8-bit data) from scratch.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "src/core/ops/options.h"
#include "src/kernels/cpu/internal/batch_matmul_shape.h"
#include "src/kernels/cpu/internal/elementwise.h"
#include "src/kernels/cpu/internal/qconv_util.h"
#include "src/kernels/cpu/internal/quantization.h"
#include "src/kernels/cpu/kernels.h"

namespace relite::cpu {
namespace {


class QuantizedBatchMatMulKernel final : public Kernel {
 public:
  QuantizedBatchMatMulKernel(bool adj_x, bool adj_y) : adj_x_(adj_x), adj_y_(adj_y) {}

  Status Prepare(KernelContext& ctx) override {
    RELITE_RETURN_IF_ERROR(CheckArity(ctx, 2, 1));
    const Tensor& x = ctx.input(0);
    const Tensor& y = ctx.input(1);
    const Tensor& out = ctx.output(0);
    type_ = x.type;
    if (type_ != DataType::kInt8 && type_ != DataType::kInt16) {
      return ctx.Unsupported("quantized lhs type " + DataTypeName(type_) + " is not supported (int8, int16)");
    }
    if (y.type != type_) {
      return ctx.Error("rhs type " + DataTypeName(y.type) + " differs from lhs type " + DataTypeName(type_));
    }
    raw_int32_ = type_ == DataType::kInt8 && out.type == DataType::kInt32;
    if (out.type != type_ && !raw_int32_) {
      return ctx.Error("output type " + DataTypeName(out.type) + " is not supported for " + DataTypeName(type_) +
                       " operands (" + (type_ == DataType::kInt8 ? "int8 or int32" : "int16") + ")");
    }
    float sx = 0, sy = 0, so = 0;
    RELITE_RETURN_IF_ERROR(ReadQuant(ctx, x, "lhs", &sx, &zx_));
    RELITE_RETURN_IF_ERROR(ReadQuant(ctx, y, "rhs", &sy, &zy_));
    if (raw_int32_) {
      zx_ = zy_ = 0;
    } else {
      RELITE_RETURN_IF_ERROR(ReadQuant(ctx, out, "output", &so, &zo_));
      multiplier_ = QuantizeMultiplier(static_cast<double>(sx) * static_cast<double>(sy) / static_cast<double>(so));
      qmin_ = QuantizedTypeMin(type_);
      qmax_ = QuantizedTypeMax(type_);
    }
    if (type_ == DataType::kInt16 && (zx_ != 0 || zy_ != 0 || zo_ != 0)) {
      return ctx.Unsupported("int16 operands and output need zero point 0");
    }

    BatchMatMulShape plan;
    RELITE_RETURN_IF_ERROR(PlanBatchMatMul(ctx, x, y, adj_x_, adj_y_, &plan));
    m_ = plan.m;
    n_ = plan.n;
    k_ = plan.k;
    x_index_ = std::move(plan.x_index);
    y_index_ = std::move(plan.y_index);
    RELITE_RETURN_IF_ERROR(ctx.ResizeOutput(0, plan.output));
    const size_t batches = x_index_.size();
    if (batches == 0 || m_ == 0 || n_ == 0) return Status::Ok();
    // Scratch: lhs rows [M][K] and rhs columns [N][K] of one batch, int16.
    ctx.RequestScratch((static_cast<size_t>(m_) + n_) * std::max(k_, 1) * sizeof(int16_t));
    return Status::Ok();
  }

  Status Eval(KernelContext& ctx) override {
    const size_t batches = x_index_.size();
    if (batches == 0 || m_ == 0 || n_ == 0) return Status::Ok();
    if (type_ == DataType::kInt8) return Run<int8_t>(ctx);
    return Run<int16_t>(ctx);
  }

 private:
  static Status ReadQuant(const KernelContext& ctx, const Tensor& t, const std::string& what, float* scale,
                          int32_t* zero_point) {
    if (t.quant.scale.size() != 1 || t.quant.zero_point.size() > 1) {
      return ctx.Unsupported(what + " must be quantized per tensor (one scale, one zero point), got " +
                             std::to_string(t.quant.scale.size()) + " scales");
    }
    *scale = t.quant.scale[0];
    if (!(*scale > 0.0f) || !std::isfinite(*scale)) return ctx.Error(what + " scale must be positive and finite");
    const int64_t zp = t.quant.zero_point.empty() ? 0 : t.quant.zero_point[0];
    if (zp < QuantizedTypeMin(t.type) || zp > QuantizedTypeMax(t.type)) {
      return ctx.Error(what + " zero point " + std::to_string(zp) + " is outside the " + DataTypeName(t.type) +
                       " range");
    }
    *zero_point = static_cast<int32_t>(zp);
    return Status::Ok();
  }

  template <typename T>
  Status Run(KernelContext& ctx) const {
    const T* x = ctx.input(0).data_as<T>();
    const T* y = ctx.input(1).data_as<T>();
    auto* rows = static_cast<int16_t*>(ctx.scratch());
    int16_t* cols = rows + static_cast<size_t>(m_) * k_;
    const size_t x_matrix = static_cast<size_t>(m_) * k_, y_matrix = static_cast<size_t>(k_) * n_;
    const size_t out_matrix = static_cast<size_t>(m_) * n_;
    int32_t* out32 = raw_int32_ ? ctx.output(0).data_as<int32_t>() : nullptr;
    T* out = raw_int32_ ? nullptr : ctx.output(0).data_as<T>();
    int64_t cols_for = -1;
    for (size_t b = 0; b < x_index_.size(); ++b) {
      const T* a = x + static_cast<size_t>(x_index_[b]) * x_matrix;
      for (int i = 0; i < m_; ++i) {
        for (int p = 0; p < k_; ++p) {
          const T v = adj_x_ ? a[static_cast<size_t>(p) * m_ + i] : a[static_cast<size_t>(i) * k_ + p];
          rows[static_cast<size_t>(i) * k_ + p] = static_cast<int16_t>(v - zx_);
        }
      }
      if (cols_for != y_index_[b]) {  // a broadcast rhs is laid out once for consecutive batches
        const T* w = y + static_cast<size_t>(y_index_[b]) * y_matrix;
        for (int j = 0; j < n_; ++j) {
          for (int p = 0; p < k_; ++p) {
            const T v = adj_y_ ? w[static_cast<size_t>(j) * k_ + p] : w[static_cast<size_t>(p) * n_ + j];
            cols[static_cast<size_t>(j) * k_ + p] = static_cast<int16_t>(v - zy_);
          }
        }
        cols_for = y_index_[b];
      }
      const int64_t min_rows = std::max<int64_t>(1, (int64_t{1} << 15) / (static_cast<int64_t>(n_) * k_ + 1));
      ctx.ParallelFor(m_, min_rows, [&](int64_t begin, int64_t end) {
        for (int64_t i = begin; i < end; ++i) {
          const int16_t* r = rows + static_cast<size_t>(i) * k_;
          for (int j = 0; j < n_; ++j) {
            const int16_t* c = cols + static_cast<size_t>(j) * k_;
            const size_t o = b * out_matrix + static_cast<size_t>(i) * n_ + j;
            if constexpr (sizeof(T) == 1) {
              // int32 sums as TFLite's; past 2^31 (K > 33000) they wrap, defined here.
              uint32_t sum = 0;
              for (int p = 0; p < k_; ++p) sum += static_cast<uint32_t>(static_cast<int32_t>(r[p]) * c[p]);
              const auto acc = static_cast<int32_t>(sum);
              if (raw_int32_) {
                out32[o] = acc;
              } else {
                const int32_t v = MultiplyByQuantizedMultiplier(acc, multiplier_) + zo_;
                out[o] = static_cast<T>(std::clamp(v, qmin_, qmax_));
              }
            } else {
              int64_t acc = 0;
              for (int p = 0; p < k_; ++p) acc += static_cast<int32_t>(r[p]) * c[p];
              const int32_t v = MultiplyByReducedMultiplier64(acc, multiplier_);
              out[o] = static_cast<T>(std::clamp(v, qmin_, qmax_));
            }
          }
        }
      });
    }
    return Status::Ok();
  }

  bool adj_x_, adj_y_;
  DataType type_ = DataType::kInt8;
  bool raw_int32_ = false;
  int32_t zx_ = 0, zy_ = 0, zo_ = 0;
  int32_t qmin_ = 0, qmax_ = 0;
  QuantizedMultiplier multiplier_;
  int m_ = 0, n_ = 0, k_ = 0;
  std::vector<int64_t> x_index_, y_index_;
};

}  // namespace

StatusOr<std::unique_ptr<Kernel>> CreateQuantizedBatchMatMul(const Node& node) {
  const auto* o = GetOptions<tflite::BatchMatMulOptions>(node);
  return std::unique_ptr<Kernel>(std::make_unique<QuantizedBatchMatMulKernel>(o && o->adj_x(), o && o->adj_y()));
}

}  // namespace relite::cpu
