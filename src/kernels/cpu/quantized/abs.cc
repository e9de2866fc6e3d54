// Quantized ABS as TFLite's builtin kernel computes it (int8, and int16 with
// zero points 0): out = clamp(|q - zp_in| + zp_out) when both scales are
// equal, else clamp(MBQM(|q - zp_in|, Q31(float(s_in / s_out))) + zp_out).
// An int16 tensor without quantization parameters is a plain integer ABS
// (TFLite's version 4): |x|, with -32768 staying -32768. uint8 is not an
// ABS type in TFLite: rejected.
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>

#include "src/kernels/cpu/internal/elementwise.h"
#include "src/kernels/cpu/internal/quantized_elementwise.h"
#include "src/kernels/cpu/kernels.h"

namespace relite::cpu {
namespace {

class QuantizedAbsKernel final : public Kernel {
 public:
  Status Prepare(KernelContext& ctx) override {
    RELITE_RETURN_IF_ERROR(CheckArity(ctx, 1, 1));
    const Tensor& input = ctx.input(0);
    type_ = input.type;
    if (type_ != DataType::kInt8 && type_ != DataType::kInt16) {
      return ctx.Unsupported("input type " + DataTypeName(type_) + " is not supported (int8, int16)");
    }
    RELITE_RETURN_IF_ERROR(CheckOutputType(ctx, 0, type_));
    plain_ = type_ == DataType::kInt16 && input.quant.scale.empty();
    if (!plain_) {
      TensorQuant in_q, out_q;
      RELITE_RETURN_IF_ERROR(ReadTensorQuant(ctx, input, "input", &in_q, true));
      RELITE_RETURN_IF_ERROR(ReadTensorQuant(ctx, ctx.output(0), "output", &out_q, true));
      in_zp_ = in_q.zero_point;
      out_zp_ = out_q.zero_point;
      rescale_ = in_q.scale != out_q.scale;
      multiplier_ = QuantizeMultiplier(static_cast<double>(in_q.scale / out_q.scale));
    }
    return ctx.ResizeOutput(0, input.shape);
  }

  Status Eval(KernelContext& ctx) override {
    if (type_ == DataType::kInt8) {
      Run<int8_t>(ctx);
    } else {
      Run<int16_t>(ctx);
    }
    return Status::Ok();
  }

 private:
  template <typename T>
  void Run(KernelContext& ctx) const {
    const T* in = ctx.input(0).data_as<T>();
    T* out = ctx.output(0).data_as<T>();
    const int64_t n = ctx.input(0).num_elements();
    const int32_t lo = std::numeric_limits<T>::min(), hi = std::numeric_limits<T>::max();
    const int32_t zi = in_zp_, zo = out_zp_;
    const bool plain = plain_, rescale = rescale_;
    const QuantizedMultiplier m = multiplier_;
    UnaryMap(ctx, in, out, n, kDefaultMinChunk, [=](T x) {
      const int32_t v = std::abs(static_cast<int32_t>(x) - zi);
      if (plain) return static_cast<T>(v);  // wraps 32768 to -32768 like TFLite's cast
      const int32_t r = rescale ? MultiplyByQuantizedMultiplier(v, m) : v;
      return static_cast<T>(std::clamp(r + zo, lo, hi));
    });
  }

  DataType type_ = DataType::kInt8;
  bool plain_ = false;
  bool rescale_ = false;
  int32_t in_zp_ = 0, out_zp_ = 0;
  QuantizedMultiplier multiplier_;
};

}  // namespace

StatusOr<std::unique_ptr<Kernel>> CreateQuantizedAbs(const Node&) {
  return std::unique_ptr<Kernel>(std::make_unique<QuantizedAbsKernel>());
}

}  // namespace relite::cpu
