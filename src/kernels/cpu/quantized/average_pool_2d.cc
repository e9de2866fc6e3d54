// Quantized AVERAGE_POOL_2D (NHWC uint8, int8, int16). XNNPACK does not take
// quantized average pooling, so this is TFLite's builtin arithmetic on the
// raw values (input and output share scale and zero point; TFLite does not
// rescale even when they differ):
//   s = sum of the in-bounds window values, n = their count
//   uint8: (s + n/2) / n;  int8 / int16: (s +- n/2) / n by the sign of s
//   (C division, so halves round away from zero), then the fused
//   activation's clamp (QuantizedActivationRange, TFLite's rounding).
#include <algorithm>
#include <memory>
#include <type_traits>

#include "src/kernels/cpu/internal/quantized_pool_2d.h"
#include "src/kernels/cpu/kernels.h"

namespace relite::cpu {
namespace {

constexpr int kTile = 64;

// Channels [c0, c0 + width) of one output pixel; kFixed > 0 fixes the width
// at compile time so the sums stay in vector registers.
template <typename T, int kFixed>
void AverageTile(const T* input, int64_t image_offset, const Pool2DGeometry& g, const PoolWindow& wy,
                 const PoolWindow& wx, int64_t c0, int width, int32_t count, QuantizedRange range,
                 T* __restrict out) {
  // Geometry in locals: the 8-bit source pointer may alias anything, which
  // would otherwise force reloads that stop the vectoriser.
  const int64_t channels = g.channels, row_stride = static_cast<int64_t>(g.in_w) * g.channels;
  const int w = kFixed > 0 ? kFixed : width;
  int32_t acc[kTile];
  for (int c = 0; c < w; ++c) acc[c] = 0;
  for (int32_t ky = wy.begin; ky < wy.end; ++ky) {
    const int64_t row = image_offset + (static_cast<int64_t>(wy.origin) + ky) * row_stride;
    for (int32_t kx = wx.begin; kx < wx.end; ++kx) {
      const T* __restrict src = input + row + (static_cast<int64_t>(wx.origin) + kx) * channels + c0;
      for (int c = 0; c < w; ++c) acc[c] += src[c];
    }
  }
  if (count == 0) {
    for (int c = 0; c < w; ++c) out[c0 + c] = static_cast<T>(std::clamp(0, range.min, range.max));
    return;
  }
  const int32_t half = count / 2;
  for (int c = 0; c < w; ++c) {
    int32_t v;
    if constexpr (std::is_same_v<T, uint8_t>) {
      v = (acc[c] + half) / count;
    } else {
      v = acc[c] > 0 ? (acc[c] + half) / count : (acc[c] - half) / count;
    }
    out[c0 + c] = static_cast<T>(std::clamp(v, range.min, range.max));
  }
}

template <typename T>
void AveragePixel(const T* input, int64_t image_offset, const Pool2DGeometry& g, const PoolWindow& wy,
                  const PoolWindow& wx, QuantizedRange range, T* __restrict out) {
  const int32_t count = std::max(0, wy.end - wy.begin) * std::max(0, wx.end - wx.begin);
  int64_t c0 = 0;
  for (; c0 + kTile <= g.channels; c0 += kTile) {
    AverageTile<T, kTile>(input, image_offset, g, wy, wx, c0, kTile, count, range, out);
  }
  if (c0 < g.channels) {
    AverageTile<T, 0>(input, image_offset, g, wy, wx, c0, static_cast<int>(g.channels - c0), count, range, out);
  }
}

class QuantizedAveragePool2DKernel final : public Kernel {
 public:
  explicit QuantizedAveragePool2DKernel(const Pool2DParams& params) : params_(params) {}

  Status Prepare(KernelContext& ctx) override {
    ScaleZeroPoint out_q;
    RELITE_RETURN_IF_ERROR(PrepareQuantizedPool2D(ctx, params_, &geo_, &out_q));
    range_ = QuantizedActivationRange(params_.activation, ctx.output(0).type, out_q.scale, out_q.zero_point);
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
      AveragePixel<T>(in, b * g.in_h * g.in_w * g.channels, g, wy, wx, range_, out + (row * g.out_w + ox) * g.channels);
    });
  }

  Pool2DParams params_;
  Pool2DGeometry geo_;
  QuantizedRange range_{0, 0};
};

}  // namespace

StatusOr<std::unique_ptr<Kernel>> CreateQuantizedAveragePool2D(const Node& node) {
  RELITE_ASSIGN_OR_RETURN(Pool2DParams params, ParsePool2DParams(node));
  return std::unique_ptr<Kernel>(std::make_unique<QuantizedAveragePool2DKernel>(params));
}

}  // namespace relite::cpu
