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

// Channels [c0, c0 + width) of one output pixel; kFixed > 0 fixes the width
// at compile time so the running maxima stay in vector registers.
template <typename T, int kFixed>
void MaxTile(const T* input, int64_t image_offset, const Pool2DGeometry& g, const PoolWindow& wy,
             const PoolWindow& wx, int64_t c0, int width, T lo, T hi, T* __restrict out) {
  // Geometry in locals: the 8-bit source pointer may alias anything, which
  // would otherwise force reloads that stop the vectoriser.
  const int64_t channels = g.channels, row_stride = static_cast<int64_t>(g.in_w) * g.channels;
  const int w = kFixed > 0 ? kFixed : width;
  T acc[kTile];
  for (int c = 0; c < w; ++c) acc[c] = std::numeric_limits<T>::lowest();
  for (int32_t ky = wy.begin; ky < wy.end; ++ky) {
    const int64_t row = image_offset + (static_cast<int64_t>(wy.origin) + ky) * row_stride;
    for (int32_t kx = wx.begin; kx < wx.end; ++kx) {
      const T* __restrict src = input + row + (static_cast<int64_t>(wx.origin) + kx) * channels + c0;
      // Value selects, not std::max: its by-reference result makes g++
      // see a possible alias and give up on vectorising.
      for (int c = 0; c < w; ++c) {
        const T v = src[c];
        acc[c] = v > acc[c] ? v : acc[c];
      }
    }
  }
  for (int c = 0; c < w; ++c) {
    const T v = acc[c] < lo ? lo : acc[c];
    out[c0 + c] = v > hi ? hi : v;
  }
}

template <typename T>
void MaxPixel(const T* input, int64_t image_offset, const Pool2DGeometry& g, const PoolWindow& wy,
              const PoolWindow& wx, QuantizedRange range, T* __restrict out) {
  const T lo = static_cast<T>(range.min), hi = static_cast<T>(range.max);
  int64_t c0 = 0;
  for (; c0 + kTile <= g.channels; c0 += kTile) MaxTile<T, kTile>(input, image_offset, g, wy, wx, c0, kTile, lo, hi, out);
  if (c0 < g.channels) {
    MaxTile<T, 0>(input, image_offset, g, wy, wx, c0, static_cast<int>(g.channels - c0), lo, hi, out);
  }
}

class QuantizedMaxPool2DKernel final : public Kernel {
 public:
  explicit QuantizedMaxPool2DKernel(const Pool2DParams& params) : params_(params) {}

  Status Prepare(KernelContext& ctx) override {
    ScaleZeroPoint out_q;
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
