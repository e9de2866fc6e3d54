// Quantized PRELU (uint8, int8; alpha of the input's type,
// broadcast against the input). TFLite runs it with its builtin kernel (the
// XNNPACK delegate takes PRELU only for float):
//   d = x - zp_in;  d >= 0: zp_out + MultiplyByQuantizedMultiplier(d, Q31(float(s_in / s_out)))
//                   d < 0:  zp_out + MultiplyByQuantizedMultiplier(d * (alpha - zp_alpha),
//                                                  Q31(float(s_in * s_alpha / s_out)))
// clamped to the output type.
#include <algorithm>
#include <cstdint>
#include <memory>

#include "src/kernels/cpu/internal/broadcast.h"
#include "src/kernels/cpu/internal/quantization.h"
#include "src/kernels/cpu/internal/quantized_elementwise.h"
#include "src/kernels/cpu/kernels.h"

namespace relite::cpu {
namespace {

class QuantizedPreluKernel final : public Kernel {
 public:
  Status Prepare(KernelContext& ctx) override {
    RELITE_RETURN_IF_ERROR(CheckBinaryOperands(ctx));
    type_ = ctx.input(0).type;
    if (type_ == DataType::kInt16) return ctx.Unsupported("int16 PRELU (TFLite has uint8 and int8 only)");
    TensorQuant in, alpha, out;
    RELITE_RETURN_IF_ERROR(ReadTensorQuant(ctx, ctx.input(0), "input", &in, true));
    RELITE_RETURN_IF_ERROR(ReadTensorQuant(ctx, ctx.input(1), "alpha", &alpha));
    RELITE_RETURN_IF_ERROR(ReadTensorQuant(ctx, ctx.output(0), "output", &out, true));
    in_zp_ = in.zero_point;
    alpha_zp_ = alpha.zero_point;
    out_zp_ = out.zero_point;
    qmin_ = out.qmin;
    qmax_ = out.qmax;
    positive_ = QuantizeMultiplier(static_cast<double>(in.scale / out.scale));
    negative_ = QuantizeMultiplier(static_cast<double>(in.scale * alpha.scale / out.scale));
    return PrepareBroadcast(ctx, &plan_, DataTypeSize(type_));
  }

  Status Eval(KernelContext& ctx) override {
    switch (type_) {
      case DataType::kUInt8: Run<uint8_t>(ctx); break;
      case DataType::kInt8: Run<int8_t>(ctx); break;
      default: return ctx.Error("unexpected type " + DataTypeName(type_));
    }
    return Status::Ok();
  }

 private:
  template <typename T>
  void Run(KernelContext& ctx) const {
    const int32_t zi = in_zp_, za = alpha_zp_, zo = out_zp_, lo = qmin_, hi = qmax_;
    const QuantizedMultiplier pos = positive_, neg = negative_;
    RunBroadcastBinary(ctx, plan_, ctx.input(0).data_as<T>(), ctx.input(1).data_as<T>(), ctx.output(0).data_as<T>(),
                       [=](T x, T a) {
                         const int32_t d = static_cast<int32_t>(x) - zi;
                         const int32_t v = d >= 0 ? MultiplyByQuantizedMultiplier(d, pos)
                                                  : MultiplyByQuantizedMultiplier(d * (static_cast<int32_t>(a) - za), neg);
                         return static_cast<T>(std::min(std::max(v + zo, lo), hi));
                       });
  }

  DataType type_ = DataType::kUInt8;
  int32_t in_zp_ = 0, alpha_zp_ = 0, out_zp_ = 0, qmin_ = 0, qmax_ = 0;
  QuantizedMultiplier positive_, negative_;
  BroadcastPlan plan_;
};

}  // namespace

StatusOr<std::unique_ptr<Kernel>> CreateQuantizedPrelu(const Node&) {
  return std::unique_ptr<Kernel>(std::make_unique<QuantizedPreluKernel>());
}

}  // namespace relite::cpu
