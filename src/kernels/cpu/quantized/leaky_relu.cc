// Quantized LEAKY_RELU (uint8, int8, int16). The XNNPACK delegate takes
// uint8/int8 when alpha is a normal non-zero float, the positive ratio
// p = in_scale / out_scale is in [2^-8, 2^7] and the negative ratio p * alpha
// (float) is in [-127.99609375, 128] with |p * alpha| >= 2^-8; then
// m = round_half_even(256 * ratio) and out = ((x - zp_in) * m + 256 * zp_out + 128) >> 8
// (arithmetic shift), clamped, with the positive m when x >= zp_in.
// Otherwise TFLite's builtin kernel: zp_out + MultiplyByQuantizedMultiplier(x - zp_in,
// Q31(float(in_scale / out_scale)) or Q31(float(in_scale * alpha / out_scale))), clamped.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>

#include "src/core/ops/options.h"
#include "src/kernels/cpu/internal/elementwise.h"
#include "src/kernels/cpu/internal/quantization.h"
#include "src/kernels/cpu/internal/quantized_elementwise.h"
#include "src/kernels/cpu/kernels.h"

namespace relite::cpu {
namespace {

class QuantizedLeakyReluKernel final : public Kernel {
 public:
  explicit QuantizedLeakyReluKernel(float alpha) : alpha_(alpha) {}

  Status Prepare(KernelContext& ctx) override {
    RELITE_RETURN_IF_ERROR(CheckArity(ctx, 1, 1));
    const Tensor& input = ctx.input(0);
    RELITE_RETURN_IF_ERROR(CheckOutputType(ctx, 0, input.type));
    TensorQuant in, out;
    RELITE_RETURN_IF_ERROR(ReadTensorQuant(ctx, input, "input", &in, true));
    RELITE_RETURN_IF_ERROR(ReadTensorQuant(ctx, ctx.output(0), "output", &out, true));
    type_ = input.type;
    in_zp_ = in.zero_point;
    out_zp_ = out.zero_point;
    qmin_ = out.qmin;
    qmax_ = out.qmax;
    const float positive = in.scale / out.scale;
    const float negative = positive * alpha_;
    use_xnnpack_ = type_ != DataType::kInt16 && std::isnormal(alpha_) && positive >= 1.0f / 256.0f &&
                   positive <= 128.0f && negative >= -127.99609375f && negative <= 128.0f &&
                   std::fabs(negative) >= 1.0f / 256.0f;
    if (use_xnnpack_) {
      xnn_positive_ = static_cast<int32_t>(std::nearbyint(256.0f * positive));
      xnn_negative_ = static_cast<int32_t>(std::nearbyint(256.0f * negative));
    } else {
      identity_ = QuantizeMultiplier(static_cast<double>(in.scale / out.scale));
      alpha_multiplier_ = QuantizeMultiplier(static_cast<double>(in.scale * alpha_ / out.scale));
    }
    return ctx.ResizeOutput(0, input.shape);
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
  template <typename T>
  void Run(KernelContext& ctx) const {
    const Tensor& input = ctx.input(0);
    const T* in = input.data_as<T>();
    T* out = ctx.output(0).data_as<T>();
    const int64_t n = input.num_elements();
    const int32_t zi = in_zp_, zo = out_zp_, lo = qmin_, hi = qmax_;
    if (use_xnnpack_) {
      const int32_t pos = xnn_positive_, neg = xnn_negative_, bias = zo * 256 + 0x80;
      UnaryMap(ctx, in, out, n, kDefaultMinChunk, [=](T x) {
        const int32_t d = static_cast<int32_t>(x) - zi;
        const int32_t v = (bias + d * (d >= 0 ? pos : neg)) >> 8;
        return static_cast<T>(std::min(std::max(v, lo), hi));
      });
    } else {
      const QuantizedMultiplier id = identity_, al = alpha_multiplier_;
      UnaryMap(ctx, in, out, n, kDefaultMinChunk, [=](T x) {
        const int32_t d = static_cast<int32_t>(x) - zi;
        const int64_t v = int64_t{zo} + MultiplyByQuantizedMultiplier(d, d >= 0 ? id : al);  // 64-bit: absurd scales
        return static_cast<T>(std::clamp<int64_t>(v, lo, hi));
      });
    }
  }

  float alpha_;
  DataType type_ = DataType::kUInt8;
  int32_t in_zp_ = 0, out_zp_ = 0, qmin_ = 0, qmax_ = 0;
  bool use_xnnpack_ = false;
  int32_t xnn_positive_ = 0, xnn_negative_ = 0;
  QuantizedMultiplier identity_, alpha_multiplier_;
};

}  // namespace

StatusOr<std::unique_ptr<Kernel>> CreateQuantizedLeakyRelu(const Node& node) {
  float alpha = 0.0f;
  if (const auto* options = GetOptions<tflite::LeakyReluOptions>(node)) alpha = options->alpha();
  return std::unique_ptr<Kernel>(std::make_unique<QuantizedLeakyReluKernel>(alpha));
}

}  // namespace relite::cpu
