// Quantized MAX_POOL_2D (NHWC uint8, int8, int16): the maximum of the
// in-bounds window values (no rescaling: input and output share their
// quantization), then the fused activation's clamp. uint8 / int8 run in
// XNNPACK, whose clamp bounds are round_half_even(zp + bound / scale) in
// float (XnnpackActivationRange); int16 runs in TFLite's builtin kernel,
// whose bounds are zp + round_half_away(bound / scale).
#include <algorithm>
#include <limits>
#include <memory>

#include "src/kernels/cpu/internal/quantized_pool_2d.h"
#include "src/kernels/cpu/kernels.h"

namespace relite::cpu {
namespace {

constexpr int kTile = 64;

template <typename T>
void MaxPixel(const T* input, int64_t image_offset, const Pool2DGeometry& g, const PoolWindow& wy,
              const PoolWindow& wx, QuantizedRange range, T* __restrict out) {
  const int64_t channels = g.channels;
  const T lo = static_cast<T>(range.min), hi = static_cast<T>(range.max);
  for (int64_t c0 = 0; c0 < channels; c0 += kTile) {
    const int w = static_cast<int>(std::min<int64_t>(kTile, channels - c0));
    T acc[kTile];
    for (int c = 0; c < w; ++c) acc[c] = std::numeric_limits<T>::lowest();
    for (int32_t ky = wy.begin; ky < wy.end; ++ky) {
      const int64_t row = image_offset + (static_cast<int64_t>(wy.origin) + ky) * g.in_w * channels;
      for (int32_t kx = wx.begin; kx < wx.end; ++kx) {
        const T* __restrict src = input + row + (static_cast<int64_t>(wx.origin) + kx) * channels + c0;
        for (int c = 0; c < w; ++c) acc[c] = std::max(acc[c], src[c]);
      }
    }
    for (int c = 0; c < w; ++c) out[c0 + c] = std::min(std::max(acc[c], lo), hi);
  }
}

class QuantizedMaxPool2DKernel final : public Kernel {
 public:
  explicit QuantizedMaxPool2DKernel(const Pool2DParams& params) : params_(params) {}

  Status Prepare(KernelContext& ctx) override {
    TensorQuant out_q;
    RELITE_RETURN_IF_ERROR(PrepareQuantizedPool2D(ctx, params_, &geo_, &out_q));
    const DataType type = ctx.output(0).type;
    range_ = type == DataType::kInt16 ? QuantizedActivationRange(params_.activation, type, out_q.scale, out_q.zero_point)
                                      : XnnpackActivationRange(params_.activation, type, out_q.scale, out_q.zero_point);
    return Status::Ok();
  }

  Status Eval(KernelContext& ctx) override {
    switch (ctx.input(0).type) {
      case DataType::kUInt8: Run<uint8_t>(ctx); break;
      case DataType::kInt8: Run<int8_t>(ctx); break;
      case DataType::kInt16: Run<int16_t>(ctx); break;
      default: return ctx.Error("unexpected input type " + DataTypeName(ctx.input(0).type));
    }
    return Status::Ok();
  }

 private:
  template <typename T>
  void Run(KernelContext& ctx) {
    const T* in = ctx.input(0).data_as<T>();
    T* out = ctx.output(0).data_as<T>();
    const Pool2DGeometry& g = geo_;
    ForEachPoolPixel(ctx, params_, g, [&](int64_t b, int64_t row, int32_t ox, const PoolWindow& wy, const PoolWindow& wx) {
      MaxPixel<T>(in, b * g.in_h * g.in_w * g.channels, g, wy, wx, range_, out + (row * g.out_w + ox) * g.channels);
    });
  }

  Pool2DParams params_;
  Pool2DGeometry geo_;
  QuantizedRange range_{0, 0};
};

}  // namespace

StatusOr<std::unique_ptr<Kernel>> CreateQuantizedMaxPool2D(const Node& node) {
  RELITE_ASSIGN_OR_RETURN(Pool2DParams params, ParsePool2DParams(node));
  return std::unique_ptr<Kernel>(std::make_unique<QuantizedMaxPool2DKernel>(params));
}

}  // namespace relite::cpu
