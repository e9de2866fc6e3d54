// Quantized RESIZE_BILINEAR (NHWC uint8, int8): the XNNPACK delegate runs it,
// interpolating raw values with 11-bit fixed-point weights:
//   scale = float(in - a) / float(out - a), a = 1 with align_corners (out > 1)
//   src   = float(o) * scale                         (align_corners, or neither flag)
//         = clamp(float(o) * scale + (0.5f * scale - 0.5f), 0, in - 1)  (half_pixel_centers)
//   lo = int(src), hi = min(lo + 1, in - 1), w = lrintf((src - lo) * 2048)
//   top = (tl << 11) + (tr - tl) * wx,  bottom = (bl << 11) + (br - bl) * wx
//   out = ((top << 11) + (bottom - top) * wy + 2^21) >> 22   (arithmetic shift)
// Input and output share their quantization, so there is no rescaling.
// Evaluated separably (x first, cached per input row, then y), which is the
// same integer arithmetic.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "src/core/ops/options.h"
#include "src/kernels/cpu/internal/quantized_lut.h"
#include "src/kernels/cpu/internal/resize.h"
#include "src/kernels/cpu/kernels.h"
#include "src/core/base/saturate.h"
#include "src/kernels/cpu/isa/kernel_table.h"

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
    if (!legacy) src = std::min(max_index, std::max(0.0f, src + offset));
    // Saturated and capped: a huge declared input dimension (on an empty
    // tensor) must not overflow the conversion or lo + 1.
    const int32_t lo = std::min(SaturateToInt32(src), in_size - 1);
    const auto i = static_cast<size_t>(o);
    taps->lo[i] = lo;
    taps->hi[i] = std::min(lo + 1, in_size - 1);
    taps->weight[i] = static_cast<int32_t>(std::nearbyint((src - static_cast<float>(lo)) * 2048.0f));
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
    // No taps for an empty output: one dimension alone (of 2^30) would be
    // gigabytes of taps for nothing.
    const bool empty = ctx.output(0).num_elements() == 0;
    ComputeQ11Taps(input.dim(1), empty ? 0 : out_h, align_corners_, half_pixel_, &rows_);
    ComputeQ11Taps(input.dim(2), empty ? 0 : out_w, align_corners_, half_pixel_, &cols_);
    // Two x-interpolated rows of int32 per part; one part per thread.
    parts_ = std::max(1, ctx.num_threads());
    const auto row_len = static_cast<size_t>(out_w) * static_cast<size_t>(input.dim(3));
    ctx.RequestScratch(static_cast<size_t>(parts_) * 2 * row_len * sizeof(int32_t));
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
  // Separable evaluation: the x-interpolated rows ("top" / "bottom" above)
  // depend only on the input row, so each part of the output keeps the two
  // it last used and recomputes one only when the input row changes (output
  // rows that share input rows then cost one vector blend each). The integer
  // arithmetic is the same as interpolating pixel by pixel.
  template <typename T>
  void Run(KernelContext& ctx) {
    const Tensor& input = ctx.input(0);
    Tensor& output = ctx.output(0);
    const int64_t batch = input.dim(0), in_h = input.dim(1), in_w = input.dim(2), channels = input.dim(3);
    const int64_t out_h = output.dim(1), out_w = output.dim(2);
    const int64_t row_len = out_w * channels;
    if (batch == 0 || row_len == 0 || out_h == 0) return;
    const T* in = input.data_as<T>();
    T* out = output.data_as<T>();
    const int64_t rows = batch * out_h;
    const int64_t parts = std::min<int64_t>(parts_, std::max<int64_t>(1, rows * row_len / (1 << 14)));
    auto* scratch = static_cast<int32_t*>(ctx.scratch());
    // The x interpolation and y blend of the ISA (isa/multi/resize_q11.cc).
    QResizeRowFn<T> row_fn;
    QResizeBlendFn<T> blend_fn;
    if constexpr (std::is_same_v<T, uint8_t>) {
      row_fn = Kernels().q_resize_row_u8;
      blend_fn = Kernels().q_resize_blend_u8;
    } else {
      row_fn = Kernels().q_resize_row_s8;
      blend_fn = Kernels().q_resize_blend_s8;
    }
    ctx.ParallelFor(parts, 1, [&](int64_t p_begin, int64_t p_end) {
      for (int64_t p = p_begin; p < p_end; ++p) {
        int32_t* buf[2] = {scratch + p * 2 * row_len, scratch + (p * 2 + 1) * row_len};
        int64_t held[2] = {-1, -1};  // global input row (b * in_h + y) in each buffer
        const int64_t r_begin = rows * p / parts, r_end = rows * (p + 1) / parts;
        for (int64_t r = r_begin; r < r_end; ++r) {
          const int64_t b = r / out_h;
          const auto oy = static_cast<size_t>(r - b * out_h);
          const T* image = in + b * in_h * in_w * channels;
          const int64_t y0 = rows_.lo[oy], y1 = rows_.hi[oy];
          const int64_t g0 = b * in_h + y0, g1 = b * in_h + y1;
          // Buffer of the top row: the one holding it, else the one not
          // holding the bottom row.
          const int kt = held[0] == g0 ? 0 : held[1] == g0 ? 1 : (held[0] == g1 ? 1 : 0);
          if (held[kt] != g0) {
            row_fn(image + y0 * in_w * channels, cols_.lo.data(), cols_.hi.data(), cols_.weight.data(), out_w, channels,
                   buf[kt]);
            held[kt] = g0;
          }
          const int kb = y1 == y0 ? kt : 1 - kt;
          if (held[kb] != g1) {
            row_fn(image + y1 * in_w * channels, cols_.lo.data(), cols_.hi.data(), cols_.weight.data(), out_w, channels,
                   buf[kb]);
            held[kb] = g1;
          }
          const int32_t* top = buf[kt];
          const int32_t* bottom = buf[kb];
          blend_fn(top, bottom, rows_.weight[oy], row_len, out + r * row_len);
        }
      }
    });
  }

  bool align_corners_;
  bool half_pixel_;
  Q11Taps rows_, cols_;
  int parts_ = 1;
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
