// EMBEDDING_LOOKUP: output row i is row lookup[i] of `value` (lookup: int32
// [n]; value: [rows, ...], rank >= 2 as in TFLite; output [n, value.dims[1:]]).
// Same-dtype value and output are copied as bytes (any fixed-size dtype).
// An int8 or uint8 value with a float32 output is the hybrid form: each
// element times the value's scale (one per tensor, or one per row when
// quantized per channel); the zero point must be 0. As in TFLite (checked
// against LiteRT 2.3), uint8 bytes are read as int8: 200 stands for -56.
// An index outside [0, rows) makes Eval fail before anything is written.
#include <cstring>
#include <memory>
#include <string>

#include "src/kernels/cpu/internal/data_movement.h"
#include "src/kernels/cpu/internal/value_inputs.h"
#include "src/kernels/cpu/kernels.h"

namespace relite::cpu {
namespace {

class EmbeddingLookupKernel final : public Kernel {
 public:
  Status Prepare(KernelContext& ctx) override {
    RELITE_RETURN_IF_ERROR(CheckArity(ctx, 2, 2, 1));
    const Tensor& lookup = ctx.input(0);
    const Tensor& value = ctx.input(1);
    const Tensor& output = ctx.output(0);
    if (lookup.type != DataType::kInt32) return ctx.Error("lookup must be int32, got " + DataTypeName(lookup.type));
    if (lookup.rank() != 1) return ctx.Error("lookup must be 1-D, got shape " + ShapeToString(lookup.shape));
    if (value.rank() < 2) return ctx.Error("value must have rank >= 2, got shape " + ShapeToString(value.shape));
    RELITE_RETURN_IF_ERROR(CheckCopyableType(ctx, value, "value"));
    hybrid_ = (value.type == DataType::kInt8 || value.type == DataType::kUInt8) && output.type == DataType::kFloat32;
    if (hybrid_) {
      if (value.quant.scale.empty()) return ctx.Error("the 8-bit value of a hybrid lookup has no scale");
      if (value.quant.IsPerChannel() &&
          (value.quant.quantized_dimension != 0 || static_cast<int64_t>(value.quant.scale.size()) != value.dim(0))) {
        return ctx.Error("per-channel scales of value must be one per row (dimension 0)");
      }
      for (const int64_t zp : value.quant.zero_point) {
        if (zp != 0) return ctx.Error("the value of a hybrid lookup must have zero point 0, got " + std::to_string(zp));
      }
    } else if (output.type != value.type) {
      if (output.type == DataType::kFloat32 && IsQuantizedType(value.type)) {
        return ctx.Unsupported("hybrid lookup of a " + DataTypeName(value.type) + " value (only int8 and uint8)");
      }
      return ctx.Error("output has dtype " + DataTypeName(output.type) + " but value has dtype " +
                       DataTypeName(value.type));
    } else {
      RELITE_RETURN_IF_ERROR(CheckSameQuantization(ctx, value, "value", output, "output"));
    }
    Shape out_shape = value.shape;
    out_shape[0] = lookup.dim(0);
    row_elems_ = DimProduct(value.shape, 1, value.rank());
    return ctx.ResizeOutput(0, std::move(out_shape));
  }

  Status Eval(KernelContext& ctx) override {
    const Tensor& lookup = ctx.input(0);
    const Tensor& value = ctx.input(1);
    Tensor& output = ctx.output(0);
    const int32_t* idx = lookup.data_as<int32_t>();
    const int64_t n = lookup.num_elements();
    const int64_t rows = value.dim(0);
    for (int64_t i = 0; i < n; ++i) {
      if (idx[i] < 0 || idx[i] >= rows) {
        return ctx.Error("lookup[" + std::to_string(i) + "] = " + std::to_string(idx[i]) + " is out of range [0, " +
                         std::to_string(rows) + ")");
      }
    }
    if (row_elems_ == 0 || n == 0) return Status::Ok();
    if (hybrid_) {
      const auto* src = static_cast<const int8_t*>(value.data);  // uint8 too: TFLite reads the bytes as int8
      float* out = output.data_as<float>();
      const bool per_row = value.quant.IsPerChannel();
      ParallelRows(ctx, n, row_elems_ * 4, [&](int64_t begin, int64_t end) {
        for (int64_t i = begin; i < end; ++i) {
          const float scale = value.quant.scale[per_row ? static_cast<size_t>(idx[i]) : 0];
          const int8_t* s = src + idx[i] * row_elems_;
          float* o = out + i * row_elems_;
          for (int64_t j = 0; j < row_elems_; ++j) o[j] = scale * static_cast<float>(s[j]);
        }
      });
      return Status::Ok();
    }
    const int64_t row_bytes = row_elems_ * static_cast<int64_t>(DataTypeSize(value.type));
    const auto* src = static_cast<const uint8_t*>(value.data);
    auto* dst = static_cast<uint8_t*>(output.data);
    ParallelRows(ctx, n, row_bytes, [&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i) {
        std::memcpy(dst + i * row_bytes, src + idx[i] * row_bytes, static_cast<size_t>(row_bytes));
      }
    });
    return Status::Ok();
  }

 private:
  static bool IsQuantizedType(DataType t) {
    return t == DataType::kUInt8 || t == DataType::kInt8 || t == DataType::kInt16 || t == DataType::kInt4;
  }

  bool hybrid_ = false;
  int64_t row_elems_ = 0;
};

}  // namespace

StatusOr<std::unique_ptr<Kernel>> CreateEmbeddingLookup(const Node&) {
  return std::unique_ptr<Kernel>(std::make_unique<EmbeddingLookupKernel>());
}

}  // namespace relite::cpu
