// Quantized RELU (uint8, int8, int16), and the clamp kernel RELU6 and
// RELU_N1_TO_1 share. TFLite runs these with its builtin kernel (the XNNPACK
// delegate takes them only for float): requantize from the input's to the
// output's parameters with a Q31 multiplier of float(in_scale / out_scale),
// then clamp to zp_out + round_half_away(bound / out_scale).
#include <algorithm>
#include <cstdint>
#include <limits>
#include <memory>

#include "src/kernels/cpu/internal/elementwise.h"
#include "src/kernels/cpu/internal/quantization.h"
#include "src/kernels/cpu/internal/quantized_elementwise.h"
#include "src/kernels/cpu/kernels.h"

namespace relite::cpu {
namespace {

class QuantizedClampKernel final : public Kernel {
 public:
  QuantizedClampKernel(float lo, float hi) : lo_(lo), hi_(hi) {}

  Status Prepare(KernelContext& ctx) override {
    RELITE_RETURN_IF_ERROR(CheckArity(ctx, 1, 1));
    const Tensor& input = ctx.input(0);
    const Tensor& output = ctx.output(0);
    RELITE_RETURN_IF_ERROR(CheckOutputType(ctx, 0, input.type));
    TensorQuant in, out;
    RELITE_RETURN_IF_ERROR(ReadTensorQuant(ctx, input, "input", &in, true));
    RELITE_RETURN_IF_ERROR(ReadTensorQuant(ctx, output, "output", &out, true));
    type_ = input.type;
    in_zp_ = in.zero_point;
    out_zp_ = out.zero_point;
    // TFLite divides in float and widens the quotient to double.
    multiplier_ = QuantizeMultiplier(static_cast<double>(in.scale / out.scale));
    identity_ = in.scale == out.scale && in.zero_point == out.zero_point;
    range_ = TfliteClampRange(lo_, hi_, out);
    if (range_.min > range_.max) range_.max = range_.min;
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
    const int32_t lo = range_.min, hi = range_.max;
    if (identity_) {
      // The multiplier is exactly 1: a plain clamp.
      const T tlo = static_cast<T>(lo), thi = static_cast<T>(hi);
      UnaryMap(ctx, in, out, n, kDefaultMinChunk, [=](T x) { return std::min(std::max(x, tlo), thi); });
      return;
    }
    const int32_t zi = in_zp_, zo = out_zp_;
    const QuantizedMultiplier m = multiplier_;
    UnaryMap(ctx, in, out, n, kDefaultMinChunk, [=](T x) {
      const int64_t v = int64_t{zo} + MultiplyByQuantizedMultiplier(static_cast<int32_t>(x) - zi, m);  // 64-bit: absurd scales
      return static_cast<T>(std::clamp<int64_t>(v, lo, hi));
    });
  }

  float lo_, hi_;
  DataType type_ = DataType::kUInt8;
  int32_t in_zp_ = 0, out_zp_ = 0;
  QuantizedMultiplier multiplier_;
  bool identity_ = false;
  QuantizedRange range_{0, 0};
};

}  // namespace

std::unique_ptr<Kernel> MakeQuantizedClampKernel(float lo, float hi) {
  return std::make_unique<QuantizedClampKernel>(lo, hi);
}

StatusOr<std::unique_ptr<Kernel>> CreateQuantizedRelu(const Node&) {
  return MakeQuantizedClampKernel(0.0f, std::numeric_limits<float>::infinity());
}

}  // namespace relite::cpu
