// TOPK_V2: the k largest values along the last dimension (k: int32 or int16
// scalar, constant, 0 <= k <= last dimension), sorted descending, and their
// positions (int32, or int16 as version 3 allows). Equal values keep
// ascending positions (the lower index first), as TFLite orders them. Input
// float32, int32, int64, or the 8/16-bit quantized types (compared as stored
// integers, which orders them like their real values; the values output
// must share the input's quantization).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "src/kernels/cpu/internal/data_movement.h"
#include "src/kernels/cpu/internal/value_inputs.h"
#include "src/kernels/cpu/kernels.h"

namespace relite::cpu {
namespace {

class TopKV2Kernel final : public Kernel {
 public:
  Status Prepare(KernelContext& ctx) override {
    RELITE_RETURN_IF_ERROR(CheckArity(ctx, 2, 2, 2));
    const Tensor& input = ctx.input(0);
    const Tensor& values = ctx.output(0);
    const Tensor& indices = ctx.output(1);
    switch (input.type) {
      case DataType::kFloat32: case DataType::kInt32: case DataType::kInt64:
      case DataType::kUInt8: case DataType::kInt8: case DataType::kInt16: break;
      default: return ctx.Error("input must be float32, int32, int64, uint8, int8 or int16, got " + DataTypeName(input.type));
    }
    RELITE_RETURN_IF_ERROR(CheckSameType(ctx, input, "input", values, "values"));
    RELITE_RETURN_IF_ERROR(CheckSameQuantization(ctx, input, "input", values, "values"));
    if (indices.type != DataType::kInt32 && indices.type != DataType::kInt16) {
      return ctx.Error("indices must be int32 or int16, got " + DataTypeName(indices.type));
    }
    if (input.rank() < 1) return ctx.Error("input must have rank >= 1");
    const Tensor& k_t = ctx.input(1);
    if (k_t.type != DataType::kInt32 && k_t.type != DataType::kInt16) {
      return ctx.Error("k must be int32 or int16, got " + DataTypeName(k_t.type));
    }
    RELITE_RETURN_IF_ERROR(RequireConstantInput(ctx, 1, "k"));
    if (k_t.num_elements() != 1 || k_t.rank() > 1 || k_t.data == nullptr || k_t.bytes < DataTypeSize(k_t.type)) {
      return ctx.Error("k must be a scalar");
    }
    const int64_t k = k_t.type == DataType::kInt32 ? int64_t{k_t.data_as<int32_t>()[0]} : int64_t{k_t.data_as<int16_t>()[0]};
    const int64_t n = input.dim(input.rank() - 1);
    if (k < 0 || k > n) return ctx.Error("k = " + std::to_string(k) + " is out of range [0, " + std::to_string(n) + "]");
    // int16 indices (TOPK_V2 version 3) must hold every position.
    if (indices.type == DataType::kInt16 && k > 0 && n - 1 > INT16_MAX) {
      return ctx.Error("int16 indices cannot address a last dimension of " + std::to_string(n));
    }
    k_ = k;
    n_ = n;
    // One row of positions; none for an empty input (its last dimension may
    // still be declared huge).
    ctx.RequestScratch(input.num_elements() == 0 ? 0 : static_cast<size_t>(n) * sizeof(int32_t));
    Shape out_shape = input.shape;
    out_shape.back() = static_cast<int32_t>(k_);
    RELITE_RETURN_IF_ERROR(ctx.ResizeOutput(0, out_shape));
    return ctx.ResizeOutput(1, std::move(out_shape));
  }

  Status Eval(KernelContext& ctx) override {
    switch (ctx.input(0).type) {
      case DataType::kFloat32: Run<float>(ctx); break;
      case DataType::kInt32: Run<int32_t>(ctx); break;
      case DataType::kInt64: Run<int64_t>(ctx); break;
      case DataType::kUInt8: Run<uint8_t>(ctx); break;
      case DataType::kInt8: Run<int8_t>(ctx); break;
      default: Run<int16_t>(ctx); break;
    }
    return Status::Ok();
  }

 private:
  template <typename T>
  void Run(KernelContext& ctx) {
    if (k_ == 0 || ctx.input(0).num_elements() == 0) return;
    const Tensor& input = ctx.input(0);
    const T* in = input.data_as<T>();
    T* out_values = ctx.output(0).data_as<T>();
    const bool int16_indices = ctx.output(1).type == DataType::kInt16;
    int32_t* out_indices = ctx.output(1).data_as<int32_t>();
    int16_t* out_indices16 = ctx.output(1).data_as<int16_t>();
    auto* order = static_cast<int32_t*>(ctx.scratch());
    const int64_t rows = input.num_elements() / n_;
    for (int64_t r = 0; r < rows; ++r) {
      const T* row = in + r * n_;
      for (int64_t i = 0; i < n_; ++i) order[i] = static_cast<int32_t>(i);
      // Larger first; equal values by ascending position. NaN goes after
      // every number (LiteRT 2.3 orders [NaN, 1, NaN, 3, -inf] the same way),
      // which keeps the comparison a strict weak order.
      std::partial_sort(order, order + k_, order + n_, [row](int32_t a, int32_t b) {
        const T va = row[a];
        const T vb = row[b];
        if constexpr (std::is_floating_point_v<T>) {
          const bool na = std::isnan(va), nb = std::isnan(vb);
          if (na || nb) return na == nb ? a < b : nb;
        }
        return va > vb || (va == vb && a < b);
      });
      for (int64_t i = 0; i < k_; ++i) {
        if (int16_indices) {
          out_indices16[r * k_ + i] = static_cast<int16_t>(order[i]);
        } else {
          out_indices[r * k_ + i] = order[i];
        }
        out_values[r * k_ + i] = row[order[i]];
      }
    }
  }

  int64_t k_ = 0;
  int64_t n_ = 0;
};

}  // namespace

StatusOr<std::unique_ptr<Kernel>> CreateTopKV2(const Node&) {
  return std::unique_ptr<Kernel>(std::make_unique<TopKV2Kernel>());
}

}  // namespace relite::cpu
