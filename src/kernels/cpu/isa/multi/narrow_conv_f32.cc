// Float convolution with at most four output channels, for one ISA (see
// src/kernels/cpu/internal/narrow_conv.h).
#include "src/kernels/cpu/internal/narrow_conv.h"
#include "src/kernels/cpu/isa/multi/variants.h"
#include "src/kernels/cpu/isa/simd.h"

namespace relite::cpu::RELITE_ISA_NS {
namespace {

using v8f = V8;
inline V8 Load8(const float* p) { return Load<V8>(p); }
// (The AVX path below uses these too.)
[[maybe_unused]] inline void Store8(float* p, V8 v) { Store<V8>(p, v); }
[[maybe_unused]] inline V8 Splat8(float x) { return Splat<V8>(x); }
[[maybe_unused]] inline V8 Clamp8(V8 x, V8 lo, V8 hi) { return Clamp(x, lo, hi); }

}  // namespace

namespace {

inline float HorizontalSum(v8f v) {
#if defined(__AVX__)
  const __m256 x = reinterpret_cast<__m256>(v);
  __m128 s = _mm_add_ps(_mm256_castps256_ps128(x), _mm256_extractf128_ps(x, 1));
  s = _mm_add_ps(s, _mm_movehl_ps(s, s));
  s = _mm_add_ss(s, _mm_movehdup_ps(s));
  return _mm_cvtss_f32(s);
#else
  float r = 0.f;
  for (int i = 0; i < 8; ++i) r += v[i];
  return r;
#endif
}

// Dot products of P pixels with N filters, accumulated over runs of the
// input: eight lanes at a time, the run's last len % 8 values in scalars.
template <int N, int P>
struct DotTile {
  v8f vec[P][N];
  float tail[P][N];

  DotTile() {
    for (int p = 0; p < P; ++p) {
      for (int j = 0; j < N; ++j) {
        vec[p][j] = v8f{};
        tail[p][j] = 0.f;
      }
    }
  }

  // x[p]: pixel p's run; filter j's run starts at w + j * w_stride.
  inline void Add(const float* const* x, const float* w, size_t w_stride, int len) {
    int k = 0;
    for (; k + 8 <= len; k += 8) {
      v8f xv[P];
      for (int p = 0; p < P; ++p) xv[p] = Load8(x[p] + k);
      for (int j = 0; j < N; ++j) {
        const v8f wv = Load8(w + j * w_stride + k);
        for (int p = 0; p < P; ++p) vec[p][j] += xv[p] * wv;
      }
    }
    for (; k < len; ++k) {
      for (int j = 0; j < N; ++j) {
        const float wv = w[j * w_stride + k];
        for (int p = 0; p < P; ++p) tail[p][j] += x[p][k] * wv;
      }
    }
  }

  inline void Store(const float* bias, float lo, float hi, float* out) const {
#if defined(__AVX__)
    if constexpr (N == 1 && P == 8) {
      // Eight pixels' sums in one vector (a transposing reduction), then one
      // bias add, clamp and store, instead of eight horizontal sums.
      auto hadd = [](v8f a, v8f b) {
        return reinterpret_cast<v8f>(_mm256_hadd_ps(reinterpret_cast<__m256>(a), reinterpret_cast<__m256>(b)));
      };
      const v8f q0 = hadd(hadd(vec[0][0], vec[1][0]), hadd(vec[2][0], vec[3][0]));
      const v8f q1 = hadd(hadd(vec[4][0], vec[5][0]), hadd(vec[6][0], vec[7][0]));
      const __m256 a = reinterpret_cast<__m256>(q0), b = reinterpret_cast<__m256>(q1);
      v8f sums = reinterpret_cast<v8f>(_mm256_add_ps(_mm256_permute2f128_ps(a, b, 0x20),
                                                     _mm256_permute2f128_ps(a, b, 0x31)));
      sums += v8f{tail[0][0], tail[1][0], tail[2][0], tail[3][0], tail[4][0], tail[5][0], tail[6][0], tail[7][0]};
      if (bias != nullptr) sums += Splat8(bias[0]);
      Store8(out, Clamp8(sums, Splat8(lo), Splat8(hi)));
      return;
    }
#endif
    for (int p = 0; p < P; ++p) {
      for (int j = 0; j < N; ++j) {
        float v = HorizontalSum(vec[p][j]) + tail[p][j] + (bias != nullptr ? bias[j] : 0.f);
        out[p * N + j] = ClampF(v, lo, hi);
      }
    }
  }
};

// Pixels per tile: enough independent accumulators to hide the FMA latency
// while the tile, its inputs and one weight vector stay in 16 registers.
template <int N> constexpr int kPixelsPerTile = N == 1 ? 8 : N == 2 ? 4 : N == 3 ? 3 : 2;

template <int N>
void RunRows(const NarrowConvGeometry& g, const float* input, const float* filter, const float* bias, float lo,
             float hi, float* output, int row_begin, int row_end) {
  constexpr int P = kPixelsPerTile<N>;
  const size_t cin = static_cast<size_t>(g.in_c);
  const size_t w_stride = static_cast<size_t>(g.filter_h) * g.filter_w * cin;
  const size_t image_floats = static_cast<size_t>(g.in_h) * g.in_w * cin;
  const int row_run = g.filter_w * g.in_c;  // a filter row, contiguous when dilation_w is 1
  // Output columns whose filter row lies wholly inside the input.
  int ox_lo = 0, ox_hi = 0;
  if (g.dilation_w == 1 && g.filter_w <= g.in_w) {
    ox_lo = MinI(g.out_w, (g.pad_left + g.stride_w - 1) / g.stride_w);
    ox_hi = MinI(MaxI((g.in_w - g.filter_w + g.pad_left) / g.stride_w + 1, ox_lo), g.out_w);
  }
  int valid_ky[64];
  for (int row = row_begin; row < row_end; ++row) {
    const int b = row / g.out_h;
    const int oy = row % g.out_h;
    const float* image = input + static_cast<size_t>(b) * image_floats;
    float* out_row = output + static_cast<size_t>(row) * g.out_w * N;
    const int iy0 = oy * g.stride_h - g.pad_top;
    int num_ky = 0;
    for (int ky = 0; ky < g.filter_h && num_ky < 64; ++ky) {
      const int iy = iy0 + ky * g.dilation_h;
      if (iy >= 0 && iy < g.in_h) valid_ky[num_ky++] = ky;
    }
    const bool few_rows = g.filter_h <= 64;
    // A pixel whose filter row is cut by padding or spread by dilation: one tap at a time.
    auto edge_pixel = [&](int ox) {
      DotTile<N, 1> tile;
      const int ix0 = ox * g.stride_w - g.pad_left;
      for (int ky = 0; ky < g.filter_h; ++ky) {
        const int iy = iy0 + ky * g.dilation_h;
        if (iy < 0 || iy >= g.in_h) continue;
        for (int kx = 0; kx < g.filter_w; ++kx) {
          const int ix = ix0 + kx * g.dilation_w;
          if (ix < 0 || ix >= g.in_w) continue;
          const float* x = image + (static_cast<size_t>(iy) * g.in_w + ix) * cin;
          tile.Add(&x, filter + (static_cast<size_t>(ky) * g.filter_w + kx) * cin, w_stride, g.in_c);
        }
      }
      tile.Store(bias, lo, hi, out_row + static_cast<size_t>(ox) * N);
    };
    auto interior_tile = [&](auto tile, int ox) {
      constexpr int kP = sizeof(tile.tail) / sizeof(tile.tail[0]);
      const float* x[kP];
      for (int i = 0; i < num_ky; ++i) {
        const int ky = valid_ky[i];
        const size_t iy = static_cast<size_t>(iy0 + ky * g.dilation_h);
        for (int p = 0; p < kP; ++p) {
          x[p] = image + (iy * g.in_w + static_cast<size_t>((ox + p) * g.stride_w - g.pad_left)) * cin;
        }
        tile.Add(x, filter + static_cast<size_t>(ky) * row_run, w_stride, row_run);
      }
      tile.Store(bias, lo, hi, out_row + static_cast<size_t>(ox) * N);
    };
    int ox = 0;
    for (; ox < ox_lo; ++ox) edge_pixel(ox);
    if (few_rows) {
      for (; ox + P <= ox_hi; ox += P) interior_tile(DotTile<N, P>{}, ox);
      for (; ox < ox_hi; ++ox) interior_tile(DotTile<N, 1>{}, ox);
    }
    for (; ox < g.out_w; ++ox) edge_pixel(ox);
  }
}

}  // namespace

void NarrowConvRowsKernel(const NarrowConvGeometry& g, const float* input, const float* filter, const float* bias,
                    float act_min, float act_max, float* output, int row_begin, int row_end) {
  switch (g.out_c) {
    case 1:
      return RunRows<1>(g, input, filter, bias, act_min, act_max, output, row_begin, row_end);
    case 2:
      return RunRows<2>(g, input, filter, bias, act_min, act_max, output, row_begin, row_end);
    case 3:
      return RunRows<3>(g, input, filter, bias, act_min, act_max, output, row_begin, row_end);
    case 4:
      return RunRows<4>(g, input, filter, bias, act_min, act_max, output, row_begin, row_end);
    default:
      return;
  }
}


void FillNarrowConvKernels(CpuKernels* k) { k->narrow_conv_f32_rows = NarrowConvRowsKernel; }

}  // namespace relite::cpu::RELITE_ISA_NS
