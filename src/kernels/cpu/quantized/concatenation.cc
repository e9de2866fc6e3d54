// Quantized CONCATENATION (uint8, int8, int16) along `axis`. An input whose
// scale and zero point equal the output's is copied (int16 inputs always
// are: TFLite's int16 kernel does not requantize); any other is requantized
// the way TFLite's builtin kernel does (the XNNPACK delegate only takes the
// op when every input matches the output; TFLite itself refuses int8 inputs
// whose parameters differ, relite requantizes them like uint8):
//   out = clamp(round_half_away(x * r + b) + zp_out), r = s_in * (1 / s_out),
//   b = -zp_in * r, all in float. The fused activation does not apply to
// quantized outputs (TFLite ignores it too).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "src/core/ops/options.h"
#include "src/kernels/cpu/internal/data_movement.h"
#include "src/kernels/cpu/internal/quantized_elementwise.h"
#include "src/kernels/cpu/kernels.h"

namespace relite::cpu {
namespace {

class QuantizedConcatenationKernel final : public Kernel {
 public:
  explicit QuantizedConcatenationKernel(int32_t axis) : axis_(axis) {}

  Status Prepare(KernelContext& ctx) override {
    RELITE_RETURN_IF_ERROR(CheckArity(ctx, 1, std::numeric_limits<int>::max(), 1));
    const Tensor& first = ctx.input(0);
    const Tensor& output = ctx.output(0);
    RELITE_RETURN_IF_ERROR(CheckSameType(ctx, first, "input 0", output, "output"));
    type_ = first.type;
    // uint8/int8 tensors without quantization parameters are plain integers:
    // concatenation is then a copy, as for any other integer type.
    bool raw = !output.quant.IsQuantized();
    for (int i = 0; i < ctx.num_inputs(); ++i) raw = raw && !ctx.input(i).quant.IsQuantized();
    TensorQuant out;
    if (raw) {
      out.scale = 1.0f;
      out.zero_point = 0;
      out.qmin = QuantizedTypeMin(type_);
      out.qmax = QuantizedTypeMax(type_);
    } else {
      RELITE_RETURN_IF_ERROR(ReadTensorQuant(ctx, output, "output", &out));
    }
    const int rank = first.rank();
    RELITE_ASSIGN_OR_RETURN(const int axis, NormalizeAxis(ctx, axis_, rank, "axis"));
    const float inverse_out_scale = 1.0f / out.scale;
    const int64_t esize = static_cast<int64_t>(DataTypeSize(type_));
    Shape out_shape = first.shape;
    int64_t axis_total = 0;
    inputs_.assign(static_cast<size_t>(ctx.num_inputs()), Piece{});
    for (int i = 0; i < ctx.num_inputs(); ++i) {
      const std::string name = "input " + std::to_string(i);
      const Tensor& in = ctx.input(i);
      RELITE_RETURN_IF_ERROR(CheckSameType(ctx, first, "input 0", in, name));
      if (in.rank() != rank) {
        return ctx.Error(name + " has rank " + std::to_string(in.rank()) + " but input 0 has rank " +
                         std::to_string(rank));
      }
      for (int d = 0; d < rank; ++d) {
        if (d != axis && in.dim(d) != first.dim(d)) {
          return ctx.Error(name + " shape " + ShapeToString(in.shape) + " differs from input 0 shape " +
                           ShapeToString(first.shape) + " outside the concatenation axis " + std::to_string(axis));
        }
      }
      TensorQuant q = out;
      if (!raw) RELITE_RETURN_IF_ERROR(ReadTensorQuant(ctx, in, name, &q));
      Piece& p = inputs_[static_cast<size_t>(i)];
      p.row_elements = DimProduct(in.shape, axis, rank);
      // TFLite's int16 kernel copies whatever the parameters; so does relite.
      p.copy = type_ == DataType::kInt16 || (q.scale == out.scale && q.zero_point == out.zero_point);
      p.scale = q.scale * inverse_out_scale;
      p.bias = static_cast<float>(-q.zero_point) * p.scale;
      if (!p.copy && !(std::isfinite(p.scale) && std::isfinite(p.bias))) {
        return ctx.Error(name + " scale " + std::to_string(q.scale) + " over the output scale " + std::to_string(out.scale) +
                         " is not a finite rescale");
      }
      axis_total += in.dim(axis);
    }
    if (axis_total > std::numeric_limits<int32_t>::max()) return ctx.Error("concatenated dimension is too large");
    out_shape[static_cast<size_t>(axis)] = static_cast<int32_t>(axis_total);
    outer_ = DimProduct(first.shape, 0, axis);
    out_row_bytes_ = DimProduct(out_shape, axis, rank) * esize;
    out_zp_ = out.zero_point;
    qmin_ = out.qmin;
    qmax_ = out.qmax;
    return ctx.ResizeOutput(0, std::move(out_shape));
  }

  Status Eval(KernelContext& ctx) override {
    switch (type_) {
      case DataType::kUInt8: Run<uint8_t>(ctx); break;
      case DataType::kInt8: Run<int8_t>(ctx); break;
      case DataType::kInt16: Run<int16_t>(ctx); break;
      default: return ctx.Error("unexpected type " + DataTypeName(type_));
    }
    return Status::Ok();
  }

 private:
  struct Piece {
    int64_t row_elements = 0;
    bool copy = true;
    float scale = 1.0f;
    float bias = 0.0f;
  };

  template <typename T>
  void Run(KernelContext& ctx) const {
    T* out = ctx.output(0).data_as<T>();
    const int64_t out_row = out_row_bytes_ / static_cast<int64_t>(sizeof(T));
    const int32_t zo = out_zp_;
    const float lo = static_cast<float>(qmin_ - zo), hi = static_cast<float>(qmax_ - zo);
    ParallelRows(ctx, outer_, out_row_bytes_, [&](int64_t begin, int64_t end) {
      for (int64_t r = begin; r < end; ++r) {
        T* dst = out + r * out_row;
        for (size_t i = 0; i < inputs_.size(); ++i) {
          const Piece& p = inputs_[i];
          const T* src = ctx.input(static_cast<int>(i)).template data_as<T>() + r * p.row_elements;
          if (p.copy) {
            CopyRowBytes(dst, src, p.row_elements * static_cast<int64_t>(sizeof(T)));
          } else {
            const float scale = p.scale, bias = p.bias;
            for (int64_t j = 0; j < p.row_elements; ++j) {
              // Clamped before the int conversion; the same as TFLite's
              // clamp after it because the bounds are integers.
              // (lo, x) order: a NaN becomes lo instead of reaching the cast.
              const float v = std::min(hi, std::max(lo, std::round(static_cast<float>(src[j]) * scale + bias)));
              dst[j] = static_cast<T>(static_cast<int32_t>(v) + zo);
            }
          }
          dst += p.row_elements;
        }
      }
    });
  }

  int32_t axis_;
  DataType type_ = DataType::kUInt8;
  std::vector<Piece> inputs_;
  int64_t outer_ = 0;
  int64_t out_row_bytes_ = 0;
  int32_t out_zp_ = 0, qmin_ = 0, qmax_ = 0;
};

}  // namespace

StatusOr<std::unique_ptr<Kernel>> CreateQuantizedConcatenation(const Node& node) {
  int32_t axis = 0;
  if (const auto* o = GetOptions<tflite::ConcatenationOptions>(node)) axis = o->axis();
  return std::unique_ptr<Kernel>(std::make_unique<QuantizedConcatenationKernel>(axis));
}

}  // namespace relite::cpu
