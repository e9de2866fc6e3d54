// Quantized RESIZE_BILINEAR (NHWC uint8, int8): the XNNPACK delegate runs it,
// interpolating raw values with 11-bit fixed-point weights:
//   scale = float(in - a) / float(out - a), a = 1 with align_corners (out > 1)
//   src   = float(o) * scale                         (align_corners, or neither flag)
//         = clamp(float(o) * scale + (0.5f * scale - 0.5f), 0, in - 1)  (half_pixel_centers)
//   lo = int(src), hi = min(lo + 1, in - 1), w = lrintf((src - lo) * 2048)
//   top = (tl << 11) + (tr - tl) * wx,  bottom = (bl << 11) + (br - bl) * wx
//   out = ((top << 11) + (bottom - top) * wy + 2^21) >> 22   (arithmetic shift)
// Input and output share their quantization, so there is no rescaling.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "src/core/ops/options.h"
#include "src/kernels/cpu/internal/quantized_lut.h"
#include "src/kernels/cpu/internal/resize.h"
#include "src/kernels/cpu/kernels.h"

namespace relite::cpu {
namespace {

struct Q11Taps {
  std::vector<int32_t> lo, hi, weight;
};

void ComputeQ11Taps(int32_t in_size, int32_t out_size, bool align_corners, bool half_pixel, Q11Taps* taps) {
  const int32_t adjust = (align_corners && out_size != 1) ? 1 : 0;
  const float scale = static_cast<float>(in_size - adjust) / static_cast<float>(out_size - adjust);
  const auto max_index = static_cast<float>(in_size - 1);
  const float offset = 0.5f * scale - 0.5f;
  const bool legacy = align_corners || !half_pixel;
  taps->lo.resize(static_cast<size_t>(out_size));
  taps->hi.resize(static_cast<size_t>(out_size));
  taps->weight.resize(static_cast<size_t>(out_size));
  for (int32_t o = 0; o < out_size; ++o) {
    float src = static_cast<float>(o) * scale;
    if (!legacy) src = std::min(std::max(src + offset, 0.0f), max_index);
    const auto lo = static_cast<int32_t>(src);
    const auto i = static_cast<size_t>(o);
    taps->lo[i] = lo;
    taps->hi[i] = std::min(lo + 1, in_size - 1);
    taps->weight[i] = static_cast<int32_t>(std::nearbyint((src - static_cast<float>(lo)) * 2048.0f));
  }
}

template <typename T>
void InterpolatePixel(const T* __restrict tl, const T* __restrict tr, const T* __restrict bl, const T* __restrict br,
                      int32_t wx, int32_t wy, int64_t channels, T* __restrict out) {
  for (int64_t c = 0; c < channels; ++c) {
    const int32_t vtl = tl[c], vtr = tr[c], vbl = bl[c], vbr = br[c];
    const int32_t top = vtl * 2048 + (vtr - vtl) * wx;
    const int32_t bottom = vbl * 2048 + (vbr - vbl) * wx;
    const int32_t acc = top * 2048 + (bottom - top) * wy;
    out[c] = static_cast<T>((acc + (1 << 21)) >> 22);
  }
}

class QuantizedResizeBilinearKernel final : public Kernel {
 public:
  QuantizedResizeBilinearKernel(bool align_corners, bool half_pixel)
      : align_corners_(align_corners), half_pixel_(half_pixel) {}

  Status Prepare(KernelContext& ctx) override {
    const Tensor& input = ctx.input(0);
    if (input.type != DataType::kUInt8 && input.type != DataType::kInt8) {
      return ctx.Unsupported("quantized " + DataTypeName(input.type) + " input is not supported (uint8, int8)");
    }
    if (align_corners_ && half_pixel_) {
      return ctx.Error("align_corners and half_pixel_centers cannot both be set");
    }
    int32_t out_h = 0, out_w = 0;
    RELITE_RETURN_IF_ERROR(PrepareResize(ctx, &out_h, &out_w));
    ComputeQ11Taps(input.dim(1), out_h, align_corners_, half_pixel_, &rows_);
    ComputeQ11Taps(input.dim(2), out_w, align_corners_, half_pixel_, &cols_);
    return Status::Ok();
  }

  Status Eval(KernelContext& ctx) override {
    if (ctx.input(0).type == DataType::kUInt8) {
      Run<uint8_t>(ctx);
    } else {
      Run<int8_t>(ctx);
    }
    return Status::Ok();
  }

 private:
  template <typename T>
  void Run(KernelContext& ctx) {
    const Tensor& input = ctx.input(0);
    Tensor& output = ctx.output(0);
    const int64_t batch = input.dim(0), in_h = input.dim(1), in_w = input.dim(2), channels = input.dim(3);
    const int64_t out_h = output.dim(1), out_w = output.dim(2);
    const T* in = input.data_as<T>();
    T* out = output.data_as<T>();
    const int64_t rows = batch * out_h;
    const int64_t row_work = std::max<int64_t>(1, out_w * channels);
    ctx.ParallelFor(rows, std::max<int64_t>(1, (1 << 14) / row_work), [&](int64_t begin, int64_t end) {
      for (int64_t r = begin; r < end; ++r) {
        const int64_t b = r / out_h;
        const auto oy = static_cast<size_t>(r - b * out_h);
        const T* image = in + b * in_h * in_w * channels;
        const T* top = image + rows_.lo[oy] * in_w * channels;
        const T* bottom = image + rows_.hi[oy] * in_w * channels;
        const int32_t wy = rows_.weight[oy];
        T* dst = out + r * out_w * channels;
        for (int64_t ox = 0; ox < out_w; ++ox) {
          const auto x = static_cast<size_t>(ox);
          const int64_t l = cols_.lo[x] * channels, h = cols_.hi[x] * channels;
          InterpolatePixel(top + l, top + h, bottom + l, bottom + h, cols_.weight[x], wy, channels,
                           dst + ox * channels);
        }
      }
    });
  }

  bool align_corners_;
  bool half_pixel_;
  Q11Taps rows_, cols_;
};

}  // namespace

StatusOr<std::unique_ptr<Kernel>> CreateQuantizedResizeBilinear(const Node& node) {
  bool align_corners = false, half_pixel = false;
  if (const auto* o = GetOptions<tflite::ResizeBilinearOptions>(node)) {
    align_corners = o->align_corners();
    half_pixel = o->half_pixel_centers();
  }
  return std::unique_ptr<Kernel>(std::make_unique<QuantizedResizeBilinearKernel>(align_corners, half_pixel));
}

}  // namespace relite::cpu
