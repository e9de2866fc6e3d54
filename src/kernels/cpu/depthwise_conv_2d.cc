// DEPTHWISE_CONV_2D on float32 NHWC data.
//
// Output channel oc = ic * multiplier + m reads input channel ic through
// filter [1, KH, KW, Cout]. Channels are the innermost, vectorised loop; the
// taps of a pixel are cut to the part inside the input once per pixel, and
// pixels whose whole window is inside the input use a kernel with the 3x3 or
// 5x5 tap loops known at compile time.
#include <algorithm>
#include <atomic>
#include <memory>
#include <string>
#include <vector>

#include "relite/kernel.h"
#include "src/core/ops/params.h"
#include "src/kernels/cpu/internal/conv_util.h"
#include "src/kernels/cpu/internal/fused_residual.h"
#include "src/kernels/cpu/internal/slot_tasks.h"
#include "src/kernels/cpu/internal/vec8f.h"
#include "src/kernels/cpu/internal/vector_math.h"
#include "src/kernels/cpu/kernels.h"

namespace relite::cpu {
namespace {

// Where one output pixel's window lies: the first in-bounds tap and the
// count of in-bounds taps in each direction.
struct Window {
  const float* input;   // input at the first tap, channel 0
  const float* filter;  // filter at the first tap, channel 0
  int taps_h, taps_w;
};

struct Strides {
  size_t input_tap_row;  // dilation_h * in_w * C
  size_t input_tap_col;  // dilation_w * C
  size_t filter_row;     // KW * Cout
  size_t filter_col;     // Cout
};

// Multiplier 1: out[c] = act(bias[c] + sum_taps in[tap][c] * w[tap][c]).
// kTapsH / kTapsW > 0 fix the tap counts at compile time.
template <int kTapsH, int kTapsW>
inline void DepthwisePixel(const Window& win, const Strides& st, const float* bias, float* out, int channels, float lo,
                           float hi) {
  const int taps_h = kTapsH > 0 ? kTapsH : win.taps_h;
  const int taps_w = kTapsW > 0 ? kTapsW : win.taps_w;
  const size_t ch = st.filter_col;
  const v8f vlo = Splat8(lo);
  const v8f vhi = Splat8(hi);
  int c = 0;
  for (; c + 32 <= channels; c += 32) {
    v8f a0 = Load8(bias + c), a1 = Load8(bias + c + 8), a2 = Load8(bias + c + 16), a3 = Load8(bias + c + 24);
    for (int ky = 0; ky < taps_h; ++ky) {
      const float* in_row = win.input + ky * st.input_tap_row + c;
      const float* w_row = win.filter + ky * st.filter_row + c;
      for (int kx = 0; kx < taps_w; ++kx) {
        const float* x = in_row + kx * st.input_tap_col;
        const float* w = w_row + kx * ch;
        a0 += Load8(x) * Load8(w);
        a1 += Load8(x + 8) * Load8(w + 8);
        a2 += Load8(x + 16) * Load8(w + 16);
        a3 += Load8(x + 24) * Load8(w + 24);
      }
    }
    Store8(out + c, Clamp8(a0, vlo, vhi));
    Store8(out + c + 8, Clamp8(a1, vlo, vhi));
    Store8(out + c + 16, Clamp8(a2, vlo, vhi));
    Store8(out + c + 24, Clamp8(a3, vlo, vhi));
  }
  for (; c + 8 <= channels; c += 8) {
    v8f a0 = Load8(bias + c);
    for (int ky = 0; ky < taps_h; ++ky) {
      const float* in_row = win.input + ky * st.input_tap_row + c;
      const float* w_row = win.filter + ky * st.filter_row + c;
      for (int kx = 0; kx < taps_w; ++kx) a0 += Load8(in_row + kx * st.input_tap_col) * Load8(w_row + kx * ch);
    }
    Store8(out + c, Clamp8(a0, vlo, vhi));
  }
  for (; c < channels; ++c) {
    float acc = bias[c];
    for (int ky = 0; ky < taps_h; ++ky) {
      const float* in_row = win.input + ky * st.input_tap_row + c;
      const float* w_row = win.filter + ky * st.filter_row + c;
      for (int kx = 0; kx < taps_w; ++kx) acc += in_row[kx * st.input_tap_col] * w_row[kx * ch];
    }
    out[c] = std::min(std::max(acc, lo), hi);
  }
}

// Any multiplier: accumulates in the output pixel itself, the multiplier's
// outputs of one input channel being the contiguous inner loop.
void DepthwisePixelMultiplier(const Window& win, const Strides& st, const float* bias, float* out, int in_channels,
                              int multiplier, float lo, float hi) {
  const int out_channels = in_channels * multiplier;
  std::copy(bias, bias + out_channels, out);
  for (int ky = 0; ky < win.taps_h; ++ky) {
    for (int kx = 0; kx < win.taps_w; ++kx) {
      const float* x = win.input + ky * st.input_tap_row + kx * st.input_tap_col;
      const float* w = win.filter + ky * st.filter_row + static_cast<size_t>(kx) * out_channels;
      for (int ic = 0; ic < in_channels; ++ic) {
        const float xv = x[ic];
        const float* wm = w + static_cast<size_t>(ic) * multiplier;
        float* om = out + static_cast<size_t>(ic) * multiplier;
        for (int m = 0; m < multiplier; ++m) om[m] += xv * wm[m];
      }
    }
  }
  for (int oc = 0; oc < out_channels; ++oc) out[oc] = std::min(std::max(out[oc], lo), hi);
}

class DepthwiseConv2DKernel final : public Kernel {
 public:
  explicit DepthwiseConv2DKernel(const DepthwiseConv2DParams& params) : params_(params) {}

  Status Prepare(KernelContext& ctx) override;
  bool FuseClamp(float min, float max) override {
    if (hard_swish_) return false;
    if (!residual_.active()) return FuseClampInto(&params_.activation, min, max);
    return residual_.TakeClamp(min, max);
  }
  bool FuseHardSwish() override {
    hard_swish_ = true;
    return true;
  }
  // ADD(depthwise output, R): the row is finished, then R is added and the
  // ADD's clamp applied while the row is in L1. The depthwise output is
  // complete (own activation included) before the sum, so any activation of
  // this node is fine.
  bool FuseResidualAdd(int residual_input_index, float min, float max) override {
    return residual_input_index == kResidualInput && !hard_swish_ && residual_.Take(min, max);
  }
  int residual_input_index() const override { return kResidualInput; }
  Status Eval(KernelContext& ctx) override;

 private:
  struct EvalJob {
    const DepthwiseConv2DKernel* kernel;
    const float* input;
    const float* filter;
    const float* bias;
    float* output;
    const float* residual;  // fused ADD operand, or null
  };
  void RunRow(const EvalJob& job, int row) const;
  // RunRow, then the fused ADD and HARD_SWISH while the row is still in L1.
  void RunRowAndFinish(const EvalJob& job, int row) const {
    RunRow(job, row);
    float* out_row = job.output + static_cast<size_t>(row) * out_w_ * out_c_;
    if (residual_.active()) {
      residual_.AddToRow(job.residual + static_cast<size_t>(row) * out_w_ * residual_.residual_channels(), out_row,
                         out_w_);
    }
    if (hard_swish_) vmath::Apply<vmath::HardSwish>(out_row, out_row, int64_t{out_w_} * out_c_);
  }
  template <int kTapsH, int kTapsW>
  void RunRowInterior(const EvalJob& job, const float* image, int iy0, float* out_row) const;
  // K x K windows (K > 3) four pixels at a time: each weight vector loaded
  // serves four pixels instead of one, which halves the loads per FMA.
  template <int K>
  void RunRowInteriorFourPixels(const EvalJob& job, const float* image, int iy0, float* out_row) const;
  void RunRowInterior3x3(const EvalJob& job, const float* image, int iy0, float* out_row) const;

  DepthwiseConv2DParams params_;
  ActivationRange act_{};
  bool hard_swish_ = false;  // a HARD_SWISH node fused after the clamp
  static constexpr int kResidualInput = 3;  // after the optional bias
  FusedRowResidual residual_;               // a fused ADD, read from input kResidualInput
  int batch_ = 0, in_h_ = 0, in_w_ = 0, in_c_ = 0;
  int out_h_ = 0, out_w_ = 0, out_c_ = 0;
  int filter_h_ = 0, filter_w_ = 0, multiplier_ = 1;
  int pad_top_ = 0, pad_left_ = 0;
  // Output columns whose window lies inside the input horizontally.
  int interior_begin_ = 0, interior_end_ = 0;
  Strides strides_{};
  std::vector<float> zero_bias_;
  SlotTasks tasks_;  // reset by every Eval
};

Status DepthwiseConv2DKernel::Prepare(KernelContext& ctx) {
  const int max_inputs = residual_.active() ? kResidualInput + 1 : 3;
  if (ctx.num_inputs() < 2 || ctx.num_inputs() > max_inputs) {
    return ctx.Error("expected 2 or 3 inputs (input, filter[, bias]), got " + std::to_string(ctx.num_inputs()));
  }
  if (ctx.num_outputs() != 1) return ctx.Error("expected 1 output, got " + std::to_string(ctx.num_outputs()));
  if (!ctx.has_input(0) || !ctx.has_input(1)) return ctx.Error("input and filter are required");
  const Tensor& input = ctx.input(0);
  const Tensor& filter = ctx.input(1);
  RELITE_RETURN_IF_ERROR(CheckFloatTensor(ctx, input, "input"));
  RELITE_RETURN_IF_ERROR(CheckFloatTensor(ctx, filter, "filter"));
  if (filter.sparsity != nullptr) return ctx.Unsupported("sparse filter is not supported");
  if (ctx.output(0).type != DataType::kFloat32) {
    return ctx.Unsupported("output type " + DataTypeName(ctx.output(0).type) + " is not supported (float32 only)");
  }
  if (input.rank() != 4) return ctx.Error("input must be 4-D [N,H,W,C], got " + ShapeToString(input.shape));
  if (filter.rank() != 4 || filter.dim(0) != 1) {
    return ctx.Error("filter must be 4-D [1,KH,KW,Cout], got " + ShapeToString(filter.shape));
  }
  batch_ = input.dim(0);
  in_h_ = input.dim(1);
  in_w_ = input.dim(2);
  in_c_ = input.dim(3);
  filter_h_ = filter.dim(1);
  filter_w_ = filter.dim(2);
  out_c_ = filter.dim(3);
  if (filter_h_ <= 0 || filter_w_ <= 0 || out_c_ <= 0) {
    return ctx.Error("filter dimensions must be positive, got " + ShapeToString(filter.shape));
  }
  if (in_c_ <= 0 || out_c_ % in_c_ != 0) {
    return ctx.Error("filter channels " + std::to_string(out_c_) + " are not a multiple of the input channels " +
                     std::to_string(in_c_));
  }
  // The shapes decide; the option is 0 or stale in some converted models.
  multiplier_ = out_c_ / in_c_;

  if (ctx.has_input(2)) {
    const Tensor& bias = ctx.input(2);
    RELITE_RETURN_IF_ERROR(CheckFloatTensor(ctx, bias, "bias"));
    if (bias.num_elements() != out_c_) {
      return ctx.Error("bias must have " + std::to_string(out_c_) + " elements, got " + ShapeToString(bias.shape));
    }
  } else {
    zero_bias_.assign(static_cast<size_t>(out_c_), 0.f);
  }

  RELITE_ASSIGN_OR_RETURN(const PaddedDim ph, ComputeWindow(ctx.node(), params_.padding, in_h_, filter_h_, params_.stride_h, params_.dilation_h));
  RELITE_ASSIGN_OR_RETURN(const PaddedDim pw, ComputeWindow(ctx.node(), params_.padding, in_w_, filter_w_, params_.stride_w, params_.dilation_w));
  out_h_ = ph.out;
  out_w_ = pw.out;
  pad_top_ = ph.pad_before;
  pad_left_ = pw.pad_before;
  RELITE_RETURN_IF_ERROR(ctx.ResizeOutput(0, {batch_, out_h_, out_w_, out_c_}));

  act_ = GetActivationRange(params_.activation);
  if (residual_.active()) {
    RELITE_RETURN_IF_ERROR(
        residual_.Prepare(ctx, kResidualInput, batch_, out_h_, out_w_, out_c_, "depthwise convolution"));
  }
  strides_.input_tap_row = static_cast<size_t>(params_.dilation_h) * in_w_ * in_c_;
  strides_.input_tap_col = static_cast<size_t>(params_.dilation_w) * in_c_;
  strides_.filter_row = static_cast<size_t>(filter_w_) * out_c_;
  strides_.filter_col = static_cast<size_t>(out_c_);
  // ox * stride - pad >= 0 and ox * stride - pad + (KW - 1) * dilation <= in_w - 1.
  const int sw = params_.stride_w;
  interior_begin_ = std::min(out_w_, CeilDiv(pad_left_, sw));
  const int last_start = in_w_ - 1 - (filter_w_ - 1) * params_.dilation_w + pad_left_;
  interior_end_ = last_start < 0 ? 0 : std::min(out_w_, FloorDiv(last_start, sw) + 1);
  if (interior_end_ < interior_begin_) interior_end_ = interior_begin_;
  return Status::Ok();
}

void DepthwiseConv2DKernel::RunRowInterior3x3(const EvalJob& job, const float* image, int iy0, float* out_row) const {
  // The nine weight vectors of a channel block stay in registers while the
  // block sweeps a tile of pixels; tiles keep the three input rows' part in L1.
  constexpr int kPixelTile = 16;
  const size_t c_total = static_cast<size_t>(in_c_);
  const size_t pixel_step = static_cast<size_t>(params_.stride_w) * c_total;
  const size_t col = strides_.input_tap_col;
  const size_t row = strides_.input_tap_row;
  const float* row_start = image + static_cast<size_t>(iy0) * in_w_ * c_total;
  const v8f vlo = Splat8(act_.min);
  const v8f vhi = Splat8(act_.max);
  const int vector_channels = in_c_ / 8 * 8;
  for (int ox0 = interior_begin_; ox0 < interior_end_; ox0 += kPixelTile) {
    const int ox1 = std::min(interior_end_, ox0 + kPixelTile);
    const float* tile_in = row_start + static_cast<size_t>(ox0 * params_.stride_w - pad_left_) * c_total;
    float* tile_out = out_row + static_cast<size_t>(ox0) * c_total;
    // One 8-channel block over the tile's pixels; `load`/`store` are full
    // vectors, or the masked last in_c % 8 channels.
    auto sweep = [&](int c, auto load, auto store) {
      const float* w = job.filter + c;
      const v8f w00 = load(w), w01 = load(w + c_total), w02 = load(w + 2 * c_total);
      const v8f w10 = load(w + 3 * c_total), w11 = load(w + 4 * c_total), w12 = load(w + 5 * c_total);
      const v8f w20 = load(w + 6 * c_total), w21 = load(w + 7 * c_total), w22 = load(w + 8 * c_total);
      const v8f bias = load(job.bias + c);
      const float* x = tile_in + c;
      float* y = tile_out + c;
      for (int ox = ox0; ox < ox1; ++ox, x += pixel_step, y += c_total) {
        v8f acc = bias + load(x) * w00;
        v8f acc2 = load(x + col) * w01;
        acc += load(x + 2 * col) * w02;
        acc2 += load(x + row) * w10;
        acc += load(x + row + col) * w11;
        acc2 += load(x + row + 2 * col) * w12;
        acc += load(x + 2 * row) * w20;
        acc2 += load(x + 2 * row + col) * w21;
        acc += load(x + 2 * row + 2 * col) * w22;
        store(y, Clamp8(acc + acc2, vlo, vhi));
      }
    };
    for (int c = 0; c < vector_channels; c += 8) {
      sweep(c, [](const float* p) { return Load8(p); }, [](float* p, v8f v) { Store8(p, v); });
    }
#if defined(__AVX2__)
    if (vector_channels < in_c_) {
      // The last in_c % 8 channels as one masked vector: a scalar tail costs
      // as much as the vectors before it when C is 28 or 36.
      const int lanes = in_c_ - vector_channels;
      const __m256i m = FirstLanesMask(lanes);
      sweep(vector_channels, [m](const float* p) { return LoadFirst(p, m); },
            [lanes](float* p, v8f v) { StoreFirst(p, v, lanes); });
    }
#else
    if (vector_channels < in_c_) {
      const int rest = in_c_ - vector_channels;
      Window win{nullptr, job.filter + vector_channels, 3, 3};
      for (int ox = ox0; ox < ox1; ++ox) {
        win.input = tile_in + static_cast<size_t>(ox - ox0) * pixel_step + vector_channels;
        DepthwisePixel<3, 3>(win, strides_, job.bias + vector_channels,
                             tile_out + static_cast<size_t>(ox - ox0) * c_total + vector_channels, rest, act_.min,
                             act_.max);
      }
    }
#endif
  }
}

// Four pixels (pixel_step apart) times kVectors * 8 channels of a K x K
// window, accumulated tap by tap in DepthwisePixel's order (same results).
template <int K, int kVectors>
inline void FourPixelBlock(const float* x, size_t pixel_step, const Strides& st, const float* w, const float* bias,
                           float* out, size_t out_step, v8f vlo, v8f vhi) {
  v8f acc[4][kVectors];
  for (int v = 0; v < kVectors; ++v) {
    const v8f b = Load8(bias + 8 * v);
    for (int p = 0; p < 4; ++p) acc[p][v] = b;
  }
  for (int ky = 0; ky < K; ++ky) {
    for (int kx = 0; kx < K; ++kx) {
      const float* wt = w + ky * st.filter_row + kx * st.filter_col;
      const float* xt = x + ky * st.input_tap_row + kx * st.input_tap_col;
      v8f wv[kVectors];
      for (int v = 0; v < kVectors; ++v) wv[v] = Load8(wt + 8 * v);
      for (int p = 0; p < 4; ++p) {
        for (int v = 0; v < kVectors; ++v) acc[p][v] += Load8(xt + p * pixel_step + 8 * v) * wv[v];
      }
    }
  }
  for (int p = 0; p < 4; ++p) {
    for (int v = 0; v < kVectors; ++v) Store8(out + p * out_step + 8 * v, Clamp8(acc[p][v], vlo, vhi));
  }
}

template <int K>
void DepthwiseConv2DKernel::RunRowInteriorFourPixels(const EvalJob& job, const float* image, int iy0,
                                                     float* out_row) const {
  const size_t channels = static_cast<size_t>(in_c_);
  const size_t pixel_step = static_cast<size_t>(params_.stride_w) * channels;
  const float* row_start = image + static_cast<size_t>(iy0) * in_w_ * channels;
  const v8f vlo = Splat8(act_.min), vhi = Splat8(act_.max);
  const int vector_channels = in_c_ / 8 * 8;
  int ox = interior_begin_;
  for (; ox + 4 <= interior_end_; ox += 4) {
    const float* x = row_start + static_cast<size_t>(ox * params_.stride_w - pad_left_) * channels;
    float* out = out_row + static_cast<size_t>(ox) * channels;
    int c = 0;
    for (; c + 16 <= vector_channels; c += 16) {
      FourPixelBlock<K, 2>(x + c, pixel_step, strides_, job.filter + c, job.bias + c, out + c, channels, vlo, vhi);
    }
    for (; c < vector_channels; c += 8) {
      FourPixelBlock<K, 1>(x + c, pixel_step, strides_, job.filter + c, job.bias + c, out + c, channels, vlo, vhi);
    }
    if (c < in_c_) {
      Window win{nullptr, job.filter + c, K, K};
      for (int p = 0; p < 4; ++p) {
        win.input = x + p * pixel_step + c;
        DepthwisePixel<K, K>(win, strides_, job.bias + c, out + p * channels + c, in_c_ - c, act_.min, act_.max);
      }
    }
  }
  Window win{nullptr, job.filter, K, K};
  for (; ox < interior_end_; ++ox) {
    win.input = row_start + static_cast<size_t>(ox * params_.stride_w - pad_left_) * channels;
    DepthwisePixel<K, K>(win, strides_, job.bias, out_row + static_cast<size_t>(ox) * channels, in_c_, act_.min,
                         act_.max);
  }
}

template <int kTapsH, int kTapsW>
void DepthwiseConv2DKernel::RunRowInterior(const EvalJob& job, const float* image, int iy0, float* out_row) const {
  const int sw = params_.stride_w;
  const size_t pixel_stride = static_cast<size_t>(in_c_);
  Window win{nullptr, job.filter, filter_h_, filter_w_};
  const float* row_start = image + static_cast<size_t>(iy0) * in_w_ * in_c_;
  for (int ox = interior_begin_; ox < interior_end_; ++ox) {
    win.input = row_start + static_cast<size_t>(ox * sw - pad_left_) * pixel_stride;
    DepthwisePixel<kTapsH, kTapsW>(win, strides_, job.bias, out_row + static_cast<size_t>(ox) * out_c_, out_c_,
                                   act_.min, act_.max);
  }
}

void DepthwiseConv2DKernel::RunRow(const EvalJob& job, int row) const {
  const int b = row / out_h_;
  const int oy = row % out_h_;
  const int dh = params_.dilation_h, dw = params_.dilation_w;
  const float* image = job.input + static_cast<size_t>(b) * in_h_ * in_w_ * in_c_;
  float* out_row = job.output + static_cast<size_t>(row) * out_w_ * out_c_;
  const int iy0 = oy * params_.stride_h - pad_top_;
  // Taps ky with 0 <= iy0 + ky * dh < in_h.
  const int ky_lo = std::min(filter_h_, std::max(0, CeilDiv(-iy0, dh)));
  const int ky_hi = std::max(ky_lo, std::min(filter_h_, FloorDiv(in_h_ - 1 - iy0, dh) + 1));
  const bool rows_inside = ky_lo == 0 && ky_hi == filter_h_;

  int ox = 0;
  auto border_pixel = [&](int x) {
    const int ix0 = x * params_.stride_w - pad_left_;
    const int kx_lo = std::min(filter_w_, std::max(0, CeilDiv(-ix0, dw)));
    const int kx_hi = std::max(kx_lo, std::min(filter_w_, FloorDiv(in_w_ - 1 - ix0, dw) + 1));
    Window win;
    win.taps_h = ky_hi - ky_lo;
    win.taps_w = kx_hi - kx_lo;
    const int iy = iy0 + ky_lo * dh;
    const int ix = ix0 + kx_lo * dw;
    // With no tap inside, the pointers are never read; keep them in range anyway.
    win.input = win.taps_h > 0 && win.taps_w > 0
                    ? image + (static_cast<size_t>(iy) * in_w_ + static_cast<size_t>(ix)) * in_c_
                    : image;
    win.filter = job.filter + (static_cast<size_t>(ky_lo) * filter_w_ + kx_lo) * out_c_;
    float* out = out_row + static_cast<size_t>(x) * out_c_;
    if (multiplier_ == 1) {
      DepthwisePixel<0, 0>(win, strides_, job.bias, out, out_c_, act_.min, act_.max);
    } else {
      DepthwisePixelMultiplier(win, strides_, job.bias, out, in_c_, multiplier_, act_.min, act_.max);
    }
  };

  if (!rows_inside || multiplier_ != 1) {
    for (; ox < out_w_; ++ox) border_pixel(ox);
    return;
  }
  for (; ox < interior_begin_; ++ox) border_pixel(ox);
  if (filter_h_ == 3 && filter_w_ == 3) {
    RunRowInterior3x3(job, image, iy0, out_row);
  } else if (filter_h_ == 5 && filter_w_ == 5) {
    RunRowInteriorFourPixels<5>(job, image, iy0, out_row);
  } else {
    RunRowInterior<0, 0>(job, image, iy0, out_row);
  }
  for (ox = interior_end_; ox < out_w_; ++ox) border_pixel(ox);
}

Status DepthwiseConv2DKernel::Eval(KernelContext& ctx) {
  const int rows = batch_ * out_h_;
  if (rows == 0 || out_w_ == 0 || out_c_ == 0) return Status::Ok();
  const EvalJob job{this, ctx.input(0).data_as<float>(), ctx.input(1).data_as<float>(),
                    ctx.has_input(2) ? ctx.input(2).data_as<float>() : zero_bias_.data(),
                    ctx.output(0).data_as<float>(),
                    residual_.active() ? ctx.input(kResidualInput).data_as<float>() : nullptr};
  const int64_t row_work = static_cast<int64_t>(out_w_) * out_c_ * filter_h_ * filter_w_;
  const int64_t min_chunk = std::max<int64_t>(1, (int64_t{1} << 15) / std::max<int64_t>(1, row_work));
  if (ctx.num_threads() <= 1 || rows <= min_chunk) {
    for (int r = 0; r < rows; ++r) RunRowAndFinish(job, r);
    return Status::Ok();
  }
  // Blocks of rows (about four per thread) in SlotTasks: each thread starts
  // on its own part of the image and then helps with the others'.
  const int64_t workers = std::min<int64_t>(ctx.num_threads(), rows / min_chunk);
  const int block = static_cast<int>(std::max<int64_t>(1, (rows + 4 * workers - 1) / (4 * workers)));
  tasks_.Reset((rows + block - 1) / block, static_cast<int>(workers));
  ctx.ParallelFor(workers, 1, [&](int64_t begin, int64_t end) {
    for (int64_t slot = begin; slot < end; ++slot) {
      for (int t = tasks_.Next(static_cast<int>(slot)); t >= 0; t = tasks_.Next(static_cast<int>(slot))) {
        const int r1 = std::min(rows, (t + 1) * block);
        for (int r = t * block; r < r1; ++r) RunRowAndFinish(job, r);
      }
    }
  });
  return Status::Ok();
}

}  // namespace

StatusOr<std::unique_ptr<Kernel>> CreateDepthwiseConv2D(const Node& node) {
  RELITE_ASSIGN_OR_RETURN(DepthwiseConv2DParams params, ParseDepthwiseConv2DParams(node));
  RELITE_RETURN_IF_ERROR(CheckClampActivation(node, params.activation));
  return std::unique_ptr<Kernel>(std::make_unique<DepthwiseConv2DKernel>(params));
}

}  // namespace relite::cpu
