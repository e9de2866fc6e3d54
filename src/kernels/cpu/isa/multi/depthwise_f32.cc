// One output row of a float DEPTHWISE_CONV_2D (NHWC), for one ISA.
//
// Output channel oc = ic * multiplier + m reads input channel ic through
// filter [1, KH, KW, Cout]. Channels are the innermost, vectorised loop; the
// taps of a pixel are cut to the part inside the input once per pixel, and
// pixels whose whole window is inside the input use a kernel with the 3x3 or
// 5x5 tap loops known at compile time.
#include "src/kernels/cpu/isa/multi/variants.h"
#include "src/kernels/cpu/isa/simd.h"

namespace relite::cpu::RELITE_ISA_NS {
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

int CeilDiv(int a, int b) { return a >= 0 ? (a + b - 1) / b : -((-a) / b); }
int FloorDiv(int a, int b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }

// Channels [c, c + lanes(V)) of one pixel over its window.
template <typename V, int kTapsH, int kTapsW>
inline V PixelVector(const Window& win, const Strides& st, const float* bias, int c, int taps_h, int taps_w) {
  V a = Load<V>(bias + c);
  for (int ky = 0; ky < taps_h; ++ky) {
    const float* in_row = win.input + ky * st.input_tap_row + c;
    const float* w_row = win.filter + ky * st.filter_row + c;
    for (int kx = 0; kx < taps_w; ++kx) a += Load<V>(in_row + kx * st.input_tap_col) * Load<V>(w_row + kx * st.filter_col);
  }
  return a;
}

// Multiplier 1: out[c] = act(bias[c] + sum_taps in[tap][c] * w[tap][c]).
// kTapsH / kTapsW > 0 fix the tap counts at compile time.
template <int kTapsH, int kTapsW>
inline void DepthwisePixel(const Window& win, const Strides& st, const float* bias, float* out, int channels, float lo,
                           float hi) {
  const int taps_h = kTapsH > 0 ? kTapsH : win.taps_h;
  const int taps_w = kTapsW > 0 ? kTapsW : win.taps_w;
  const size_t ch = st.filter_col;
  const VecF vlo = Splat<VecF>(lo), vhi = Splat<VecF>(hi);
  constexpr int kL = kLanes;
  int c = 0;
  for (; c + 4 * kL <= channels; c += 4 * kL) {
    VecF a0 = Load<VecF>(bias + c), a1 = Load<VecF>(bias + c + kL), a2 = Load<VecF>(bias + c + 2 * kL),
         a3 = Load<VecF>(bias + c + 3 * kL);
    for (int ky = 0; ky < taps_h; ++ky) {
      const float* in_row = win.input + ky * st.input_tap_row + c;
      const float* w_row = win.filter + ky * st.filter_row + c;
      for (int kx = 0; kx < taps_w; ++kx) {
        const float* x = in_row + kx * st.input_tap_col;
        const float* w = w_row + kx * ch;
        a0 += Load<VecF>(x) * Load<VecF>(w);
        a1 += Load<VecF>(x + kL) * Load<VecF>(w + kL);
        a2 += Load<VecF>(x + 2 * kL) * Load<VecF>(w + 2 * kL);
        a3 += Load<VecF>(x + 3 * kL) * Load<VecF>(w + 3 * kL);
      }
    }
    Store<VecF>(out + c, Clamp(a0, vlo, vhi));
    Store<VecF>(out + c + kL, Clamp(a1, vlo, vhi));
    Store<VecF>(out + c + 2 * kL, Clamp(a2, vlo, vhi));
    Store<VecF>(out + c + 3 * kL, Clamp(a3, vlo, vhi));
  }
  for (; c + kL <= channels; c += kL) {
    Store<VecF>(out + c, Clamp(PixelVector<VecF, kTapsH, kTapsW>(win, st, bias, c, taps_h, taps_w), vlo, vhi));
  }
  if constexpr (kL > 8) {
    for (; c + 8 <= channels; c += 8) {
      Store<V8>(out + c, Clamp(PixelVector<V8, kTapsH, kTapsW>(win, st, bias, c, taps_h, taps_w), Splat<V8>(lo),
                               Splat<V8>(hi)));
    }
  }
  for (; c < channels; ++c) {
    float acc = bias[c];
    for (int ky = 0; ky < taps_h; ++ky) {
      const float* in_row = win.input + ky * st.input_tap_row + c;
      const float* w_row = win.filter + ky * st.filter_row + c;
      for (int kx = 0; kx < taps_w; ++kx) acc += in_row[kx * st.input_tap_col] * w_row[kx * ch];
    }
    out[c] = ClampF(acc, lo, hi);
  }
}

// Any multiplier: accumulates in the output pixel itself, the multiplier's
// outputs of one input channel being the contiguous inner loop.
void DepthwisePixelMultiplier(const Window& win, const Strides& st, const float* bias, float* out, int in_channels,
                              int multiplier, float lo, float hi) {
  const int out_channels = in_channels * multiplier;
  for (int oc = 0; oc < out_channels; ++oc) out[oc] = bias[oc];
  for (int ky = 0; ky < win.taps_h; ++ky) {
    for (int kx = 0; kx < win.taps_w; ++kx) {
      const float* x = win.input + ky * st.input_tap_row + kx * st.input_tap_col;
      const float* w = win.filter + ky * st.filter_row + kx * st.filter_col;
      for (int ic = 0; ic < in_channels; ++ic) {
        const float xv = x[ic];
        const float* wm = w + static_cast<size_t>(ic) * multiplier;
        float* om = out + static_cast<size_t>(ic) * multiplier;
        for (int m = 0; m < multiplier; ++m) om[m] += xv * wm[m];
      }
    }
  }
  for (int oc = 0; oc < out_channels; ++oc) out[oc] = ClampF(out[oc], lo, hi);
}

// Channels [c, C) of a tile's K x K interior pixels one pixel at a time,
// where the ISA has no masked vector for the tail.
template <int K>
void TailPixels(const DepthwiseF32Job& job, const Strides& st, int c, const float* tile_in, float* tile_out, int pixels,
                size_t pixel_step) {
  const size_t out_pixel = static_cast<size_t>(job.out_pixel);
  Window win{nullptr, job.filter + c, K, K};
  for (int p = 0; p < pixels; ++p) {
    win.input = tile_in + static_cast<size_t>(p) * pixel_step + c;
    DepthwisePixel<K, K>(win, st, job.bias + c, tile_out + static_cast<size_t>(p) * out_pixel + c, job.in_c - c,
                         job.act_min, job.act_max);
  }
}

// One channel block of the 3x3 interior: the nine weight vectors stay in
// registers while the block sweeps the tile's pixels. `lanes` < lanes(V)
// marks the masked last block.
template <typename V, bool kMasked>
inline void Sweep3x3(const float* w, const float* bias, const float* x, float* y, int pixels, size_t pixel_step,
                     size_t c_total, size_t col, size_t row, V vlo, V vhi, int lanes) {
  auto load = [lanes](const float* p) { return kMasked ? LoadFirst<V>(p, lanes) : Load<V>(p); };
  const V w00 = load(w), w01 = load(w + c_total), w02 = load(w + 2 * c_total);
  const V w10 = load(w + 3 * c_total), w11 = load(w + 4 * c_total), w12 = load(w + 5 * c_total);
  const V w20 = load(w + 6 * c_total), w21 = load(w + 7 * c_total), w22 = load(w + 8 * c_total);
  const V b = load(bias);
  for (int p = 0; p < pixels; ++p, x += pixel_step, y += c_total) {
    V acc = b + load(x) * w00;
    V acc2 = load(x + col) * w01;
    acc += load(x + 2 * col) * w02;
    acc2 += load(x + row) * w10;
    acc += load(x + row + col) * w11;
    acc2 += load(x + row + 2 * col) * w12;
    acc += load(x + 2 * row) * w20;
    acc2 += load(x + 2 * row + col) * w21;
    acc += load(x + 2 * row + 2 * col) * w22;
    const V out = Clamp(acc + acc2, vlo, vhi);
    if (kMasked) {
      StoreFirst<V>(y, out, lanes);
    } else {
      Store<V>(y, out);
    }
  }
}

void RowInterior3x3(const DepthwiseF32Job& job, const Strides& st, const float* image, int iy0, float* out_row) {
  // Tiles keep the three input rows' part in L1.
  constexpr int kPixelTile = 16;
  const int in_c = job.in_c;
  const size_t c_total = static_cast<size_t>(job.out_pixel);  // filter taps and output pixels
  const size_t in_pixel = static_cast<size_t>(job.in_pixel);
  const size_t pixel_step = static_cast<size_t>(job.stride_w) * in_pixel;
  const size_t col = st.input_tap_col;
  const size_t row = st.input_tap_row;
  const float* row_start = image + static_cast<size_t>(iy0) * job.in_w * in_pixel;
  const VecF vlo = Splat<VecF>(job.act_min), vhi = Splat<VecF>(job.act_max);
  const V8 vlo8 = Splat<V8>(job.act_min), vhi8 = Splat<V8>(job.act_max);
  const int wide_channels = in_c / kLanes * kLanes;
  const int vector_channels = in_c / 8 * 8;
  for (int ox0 = job.interior_begin; ox0 < job.interior_end; ox0 += kPixelTile) {
    const int ox1 = MinI(job.interior_end, ox0 + kPixelTile);
    const int pixels = ox1 - ox0;
    const float* tile_in = row_start + static_cast<size_t>(ox0 * job.stride_w - job.pad_left) * in_pixel;
    float* tile_out = out_row + static_cast<size_t>(ox0) * c_total;
    int c = 0;
    for (; c < wide_channels; c += kLanes) {
      Sweep3x3<VecF, false>(job.filter + c, job.bias + c, tile_in + c, tile_out + c, pixels, pixel_step, c_total, col,
                            row, vlo, vhi, kLanes);
    }
    if constexpr (kLanes > 8) {
      for (; c < vector_channels; c += 8) {
        Sweep3x3<V8, false>(job.filter + c, job.bias + c, tile_in + c, tile_out + c, pixels, pixel_step, c_total, col,
                            row, vlo8, vhi8, 8);
      }
    }
    if (c == in_c) continue;
    if constexpr (kMaskedTails) {
      // The last channels as one masked vector: a scalar tail costs as much
      // as the vectors before it when C is 28 or 36.
      Sweep3x3<VecF, true>(job.filter + c, job.bias + c, tile_in + c, tile_out + c, pixels, pixel_step, c_total, col,
                           row, vlo, vhi, in_c - c);
    } else {
      TailPixels<3>(job, st, c, tile_in, tile_out, pixels, pixel_step);
    }
  }
}

// One channel block of the 5x5 interior: the 25 weight vectors stay in
// registers (with AVX-512's 32) while the block sweeps the tile's pixels
// three at a time, each pixel's taps split over two accumulators: six
// independent chains, one load per multiply-add, all from L1.
template <typename V, bool kMasked>
inline void Sweep5x5(const float* w, const float* bias, const float* x, float* y, int pixels, size_t pixel_step,
                     size_t c_total, size_t col, size_t row, V vlo, V vhi, int lanes) {
  auto load = [lanes](const float* p) { return kMasked ? LoadFirst<V>(p, lanes) : Load<V>(p); };
  V wt[25];
#pragma GCC unroll 25
  for (int t = 0; t < 25; ++t) wt[t] = load(w + static_cast<size_t>(t) * c_total);
  const V b = load(bias);
  auto store = [&](float* out, V v) {
    v = Clamp(v, vlo, vhi);
    if (kMasked) {
      StoreFirst<V>(out, v, lanes);
    } else {
      Store<V>(out, v);
    }
  };
  int p = 0;
  for (; p + 3 <= pixels; p += 3, x += 3 * pixel_step, y += 3 * c_total) {
    V a0 = b, a1 = V{}, b0 = b, b1 = V{}, d0 = b, d1 = V{};
    // A row pointer per tap row and the column as an index register: 25
    // precomputed offsets would not fit in the general registers.
#pragma GCC unroll 5
    for (int ky = 0; ky < 5; ++ky) {
      const float* r = x + ky * row;
      const float* r1 = r + pixel_step;
      const float* r2 = r1 + pixel_step;
#pragma GCC unroll 5
      for (int kx = 0; kx < 5; ++kx) {
        if ((ky * 5 + kx) % 2 == 0) {
          a0 += load(r + kx * col) * wt[ky * 5 + kx];
          b0 += load(r1 + kx * col) * wt[ky * 5 + kx];
          d0 += load(r2 + kx * col) * wt[ky * 5 + kx];
        } else {
          a1 += load(r + kx * col) * wt[ky * 5 + kx];
          b1 += load(r1 + kx * col) * wt[ky * 5 + kx];
          d1 += load(r2 + kx * col) * wt[ky * 5 + kx];
        }
      }
    }
    store(y, a0 + a1);
    store(y + c_total, b0 + b1);
    store(y + 2 * c_total, d0 + d1);
  }
  for (; p < pixels; ++p, x += pixel_step, y += c_total) {
    V a0 = b, a1 = V{};
#pragma GCC unroll 5
    for (int ky = 0; ky < 5; ++ky) {
      const float* r = x + ky * row;
#pragma GCC unroll 5
      for (int kx = 0; kx < 5; ++kx) {
        if ((ky * 5 + kx) % 2 == 0) {
          a0 += load(r + kx * col) * wt[ky * 5 + kx];
        } else {
          a1 += load(r + kx * col) * wt[ky * 5 + kx];
        }
      }
    }
    store(y, a0 + a1);
  }
}

// The 5x5 interior of one output row with 16-lane vectors and 32 registers
// to hold the weights.
void RowInterior5x5Registers(const DepthwiseF32Job& job, const Strides& st, const float* image, int iy0,
                             float* out_row) {
  constexpr int kPixelTile = 18;  // whole triples
  const int in_c = job.in_c;
  const size_t c_total = static_cast<size_t>(job.out_pixel);  // filter taps and output pixels
  const size_t in_pixel = static_cast<size_t>(job.in_pixel);
  const size_t pixel_step = static_cast<size_t>(job.stride_w) * in_pixel;
  const float* row_start = image + static_cast<size_t>(iy0) * job.in_w * in_pixel;
  const VecF vlo = Splat<VecF>(job.act_min), vhi = Splat<VecF>(job.act_max);
  const int wide_channels = in_c / kLanes * kLanes;
  for (int ox0 = job.interior_begin; ox0 < job.interior_end; ox0 += kPixelTile) {
    const int pixels = MinI(job.interior_end, ox0 + kPixelTile) - ox0;
    const float* tile_in = row_start + static_cast<size_t>(ox0 * job.stride_w - job.pad_left) * in_pixel;
    float* tile_out = out_row + static_cast<size_t>(ox0) * c_total;
    int c = 0;
    for (; c < wide_channels; c += kLanes) {
      Sweep5x5<VecF, false>(job.filter + c, job.bias + c, tile_in + c, tile_out + c, pixels, pixel_step, c_total,
                            st.input_tap_col, st.input_tap_row, vlo, vhi, kLanes);
    }
    if (c == in_c) continue;
    if constexpr (kMaskedTails) {
      Sweep5x5<VecF, true>(job.filter + c, job.bias + c, tile_in + c, tile_out + c, pixels, pixel_step, c_total,
                           st.input_tap_col, st.input_tap_row, vlo, vhi, in_c - c);
    } else {
      TailPixels<5>(job, st, c, tile_in, tile_out, pixels, pixel_step);
    }
  }
}

// Four pixels (pixel_step apart) times kVectors vectors of channels of a
// K x K window, accumulated tap by tap in DepthwisePixel's order.
template <int K, typename V, int kVectors>
inline void FourPixelBlock(const float* x, size_t pixel_step, const Strides& st, const float* w, const float* bias,
                           float* out, size_t out_step, float lo, float hi) {
  constexpr int kL = static_cast<int>(sizeof(V) / sizeof(float));
  V acc[4][kVectors];
  for (int v = 0; v < kVectors; ++v) {
    const V b = Load<V>(bias + kL * v);
    for (int p = 0; p < 4; ++p) acc[p][v] = b;
  }
  for (int ky = 0; ky < K; ++ky) {
    for (int kx = 0; kx < K; ++kx) {
      const float* wt = w + ky * st.filter_row + kx * st.filter_col;
      const float* xt = x + ky * st.input_tap_row + kx * st.input_tap_col;
      V wv[kVectors];
      for (int v = 0; v < kVectors; ++v) wv[v] = Load<V>(wt + kL * v);
      for (int p = 0; p < 4; ++p) {
        for (int v = 0; v < kVectors; ++v) acc[p][v] += Load<V>(xt + p * pixel_step + kL * v) * wv[v];
      }
    }
  }
  const V vlo = Splat<V>(lo), vhi = Splat<V>(hi);
  for (int p = 0; p < 4; ++p) {
    for (int v = 0; v < kVectors; ++v) Store<V>(out + p * out_step + kL * v, Clamp(acc[p][v], vlo, vhi));
  }
}

// K x K windows (K > 3) four pixels at a time: each weight vector loaded
// serves four pixels instead of one, which halves the loads per FMA.
template <int K>
void RowInteriorFourPixels(const DepthwiseF32Job& job, const Strides& st, const float* image, int iy0,
                           float* out_row) {
  const int in_c = job.in_c;
  const size_t channels = static_cast<size_t>(job.out_pixel);  // output pixels
  const size_t in_pixel = static_cast<size_t>(job.in_pixel);
  const size_t pixel_step = static_cast<size_t>(job.stride_w) * in_pixel;
  const float* row_start = image + static_cast<size_t>(iy0) * job.in_w * in_pixel;
  const int vector_channels = in_c / 8 * 8;
  const float lo = job.act_min, hi = job.act_max;
  int ox = job.interior_begin;
  for (; ox + 4 <= job.interior_end; ox += 4) {
    const float* x = row_start + static_cast<size_t>(ox * job.stride_w - job.pad_left) * in_pixel;
    float* out = out_row + static_cast<size_t>(ox) * channels;
    int c = 0;
    for (; c + 2 * kLanes <= vector_channels; c += 2 * kLanes) {
      FourPixelBlock<K, VecF, 2>(x + c, pixel_step, st, job.filter + c, job.bias + c, out + c, channels, lo, hi);
    }
    for (; c + kLanes <= vector_channels; c += kLanes) {
      FourPixelBlock<K, VecF, 1>(x + c, pixel_step, st, job.filter + c, job.bias + c, out + c, channels, lo, hi);
    }
    for (; c < vector_channels; c += 8) {
      FourPixelBlock<K, V8, 1>(x + c, pixel_step, st, job.filter + c, job.bias + c, out + c, channels, lo, hi);
    }
    if (c < in_c) {
      Window win{nullptr, job.filter + c, K, K};
      for (int p = 0; p < 4; ++p) {
        win.input = x + p * pixel_step + c;
        DepthwisePixel<K, K>(win, st, job.bias + c, out + p * channels + c, in_c - c, lo, hi);
      }
    }
  }
  Window win{nullptr, job.filter, K, K};
  for (; ox < job.interior_end; ++ox) {
    win.input = row_start + static_cast<size_t>(ox * job.stride_w - job.pad_left) * in_pixel;
    DepthwisePixel<K, K>(win, st, job.bias, out_row + static_cast<size_t>(ox) * channels, in_c, lo, hi);
  }
}

void RowInterior(const DepthwiseF32Job& job, const Strides& st, const float* image, int iy0, float* out_row) {
  Window win{nullptr, job.filter, job.filter_h, job.filter_w};
  const float* row_start = image + static_cast<size_t>(iy0) * job.in_w * job.in_pixel;
  for (int ox = job.interior_begin; ox < job.interior_end; ++ox) {
    win.input = row_start + static_cast<size_t>(ox * job.stride_w - job.pad_left) * job.in_pixel;
    DepthwisePixel<0, 0>(win, st, job.bias, out_row + static_cast<size_t>(ox) * job.out_pixel, job.out_c, job.act_min,
                         job.act_max);
  }
}

}  // namespace

void DepthwiseF32Row(const DepthwiseF32Job& job, int row) {
  Strides st;
  st.input_tap_row = static_cast<size_t>(job.dilation_h) * job.in_w * job.in_pixel;
  st.input_tap_col = static_cast<size_t>(job.dilation_w) * job.in_pixel;
  st.filter_row = static_cast<size_t>(job.filter_w) * job.out_pixel;
  st.filter_col = static_cast<size_t>(job.out_pixel);
  const int b = row / job.out_h;
  const int oy = row % job.out_h;
  const int dh = job.dilation_h, dw = job.dilation_w;
  const float* image = job.input + static_cast<size_t>(b) * job.in_h * job.in_w * job.in_pixel;
  float* out_row = job.output + static_cast<size_t>(row) * job.out_w * job.out_pixel;
  const int iy0 = oy * job.stride_h - job.pad_top;
  // Taps ky with 0 <= iy0 + ky * dh < in_h.
  const int ky_lo = MinI(job.filter_h, MaxI(0, CeilDiv(-iy0, dh)));
  const int ky_hi = MaxI(ky_lo, MinI(job.filter_h, FloorDiv(job.in_h - 1 - iy0, dh) + 1));
  const bool rows_inside = ky_lo == 0 && ky_hi == job.filter_h;

  auto border_pixel = [&](int x) {
    const int ix0 = x * job.stride_w - job.pad_left;
    const int kx_lo = MinI(job.filter_w, MaxI(0, CeilDiv(-ix0, dw)));
    const int kx_hi = MaxI(kx_lo, MinI(job.filter_w, FloorDiv(job.in_w - 1 - ix0, dw) + 1));
    Window win;
    win.taps_h = ky_hi - ky_lo;
    win.taps_w = kx_hi - kx_lo;
    const int iy = iy0 + ky_lo * dh;
    const int ix = ix0 + kx_lo * dw;
    // With no tap inside, the pointers are never read; keep them in range anyway.
    win.input = win.taps_h > 0 && win.taps_w > 0
                    ? image + (static_cast<size_t>(iy) * job.in_w + static_cast<size_t>(ix)) * job.in_pixel
                    : image;
    win.filter = job.filter + (static_cast<size_t>(ky_lo) * job.filter_w + kx_lo) * job.out_pixel;
    float* out = out_row + static_cast<size_t>(x) * job.out_pixel;
    if (job.multiplier == 1) {
      DepthwisePixel<0, 0>(win, st, job.bias, out, job.out_c, job.act_min, job.act_max);
    } else {
      DepthwisePixelMultiplier(win, st, job.bias, out, job.in_c, job.multiplier, job.act_min, job.act_max);
    }
  };

  int ox = 0;
  if (!rows_inside || job.multiplier != 1) {
    for (; ox < job.out_w; ++ox) border_pixel(ox);
    return;
  }
  for (; ox < job.interior_begin; ++ox) border_pixel(ox);
  if (job.filter_h == 3 && job.filter_w == 3) {
    RowInterior3x3(job, st, image, iy0, out_row);
  } else if (job.filter_h == 5 && job.filter_w == 5) {
    // Registers pay where the weights (25 x C floats) crowd the input out of
    // L1: 14x14x384 69 -> 57 us, while 28x28x144 stayed faster four pixels
    // at a time (53 vs 57 us; relite_kernel_bench, 1 thread, Zen 5).
    if (kLanes == 16 && kVectorRegisters == 32 && job.in_c >= 256) {
      RowInterior5x5Registers(job, st, image, iy0, out_row);
    } else {
      RowInteriorFourPixels<5>(job, st, image, iy0, out_row);
    }
  } else {
    RowInterior(job, st, image, iy0, out_row);
  }
  for (ox = job.interior_end; ox < job.out_w; ++ox) border_pixel(ox);
}

}  // namespace relite::cpu::RELITE_ISA_NS
