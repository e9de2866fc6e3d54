// Quantized L2_NORMALIZATION over the last axis as TFLite's builtin kernels
// compute it: per row, acc = sum((q - zp)^2) exactly, (m, s) = TFLite's
// fixed-point 1/sqrt(acc) (internal/fixed_point_inv_sqrt.h), then
//   uint8: out = clamp(128 + MBQM(128 * (q - zp), m, s), 0, 255)
//   int8:  out = clamp(MBQM(q - zp, m, s + 7), -128, 127)
// TFLite fixes the output quantization: scale 1/128, zero point 128 (uint8)
// or 0 (int8). Rank <= 4 and no fused activation, as for float.
#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>

#include "src/core/ops/options.h"
#include "src/kernels/cpu/internal/elementwise.h"
#include "src/kernels/cpu/internal/fixed_point_inv_sqrt.h"
#include "src/kernels/cpu/internal/quantized_elementwise.h"
#include "src/kernels/cpu/kernels.h"

namespace relite::cpu {
namespace {

class QuantizedL2NormalizationKernel final : public Kernel {
 public:
  Status Prepare(KernelContext& ctx) override {
    RELITE_RETURN_IF_ERROR(CheckArity(ctx, 1, 1));
    const Tensor& in = ctx.input(0);
    type_ = in.type;
    if (type_ != DataType::kUInt8 && type_ != DataType::kInt8) {
      return ctx.Unsupported("quantized " + DataTypeName(type_) + " input is not supported (uint8, int8)");
    }
    RELITE_RETURN_IF_ERROR(CheckOutputType(ctx, 0, type_));
    if (in.rank() < 1 || in.rank() > 4) return ctx.Error("input rank must be 1..4, got " + std::to_string(in.rank()));
    TensorQuant in_q, out_q;
    RELITE_RETURN_IF_ERROR(ReadTensorQuant(ctx, in, "input", &in_q));
    RELITE_RETURN_IF_ERROR(ReadTensorQuant(ctx, ctx.output(0), "output", &out_q));
    const int32_t want_zp = type_ == DataType::kUInt8 ? 128 : 0;
    if (out_q.scale != 1.0f / 128.0f || out_q.zero_point != want_zp) {
      return ctx.Error("output must have scale 1/128 and zero point " + std::to_string(want_zp) + " (has " +
                       std::to_string(out_q.scale) + ", " + std::to_string(out_q.zero_point) + ")");
    }
    in_zp_ = in_q.zero_point;
    return ctx.ResizeOutput(0, in.shape);
  }

  Status Eval(KernelContext& ctx) override {
    const Tensor& in = ctx.input(0);
    const int64_t depth = in.dim(in.rank() - 1);
    if (depth == 0) return Status::Ok();
    const int64_t rows = in.num_elements() / depth;
    ctx.ParallelFor(rows, std::max<int64_t>(1, 8192 / depth), [&](int64_t begin, int64_t end) {
      for (int64_t r = begin; r < end; ++r) {
        if (type_ == DataType::kUInt8) {
          Row(in.data_as<uint8_t>() + r * depth, ctx.output(0).data_as<uint8_t>() + r * depth, depth);
        } else {
          Row(in.data_as<int8_t>() + r * depth, ctx.output(0).data_as<int8_t>() + r * depth, depth);
        }
      }
    });
    return Status::Ok();
  }

 private:
  template <typename T>
  void Row(const T* x, T* y, int64_t depth) const {
    // TFLite sums in int32; a row of more than 2^15 values at the extremes
    // would overflow there. The wrap is reproduced.
    uint32_t acc = 0;
    for (int64_t i = 0; i < depth; ++i) {
      const int32_t d = static_cast<int32_t>(x[i]) - in_zp_;
      acc += static_cast<uint32_t>(d * d);
    }
    const QuantizedMultiplier m = InvSqrtQuantizedMultiplierExp(static_cast<int32_t>(acc), -1);
    for (int64_t i = 0; i < depth; ++i) {
      const int32_t d = static_cast<int32_t>(x[i]) - in_zp_;
      if constexpr (std::is_same_v<T, uint8_t>) {
        const int32_t v = 128 + MultiplyByQuantizedMultiplier(128 * d, m);
        y[i] = static_cast<uint8_t>(std::clamp(v, 0, 255));
      } else {
        const int32_t v = MultiplyByQuantizedMultiplier(d, {m.multiplier, m.shift + 7});
        y[i] = static_cast<int8_t>(std::clamp(v, -128, 127));
      }
    }
  }

  DataType type_ = DataType::kUInt8;
  int32_t in_zp_ = 0;
};

}  // namespace

StatusOr<std::unique_ptr<Kernel>> CreateQuantizedL2Normalization(const Node& node) {
  if (const auto* o = GetOptions<tflite::L2NormOptions>(node)) {
    if (o->fused_activation_function() != tflite::ActivationFunctionType::NONE) {
      return UnimplementedError(node.Describe() + ": a fused activation is not supported (TFLite requires NONE)");
    }
  }
  return std::unique_ptr<Kernel>(std::make_unique<QuantizedL2NormalizationKernel>());
}

}  // namespace relite::cpu
