// The two loops of the 8-bit RESIZE_BILINEAR (Q11 fixed point, see
// src/kernels/cpu/quantized/resize_bilinear.cc), for one ISA: int32 lane
// arithmetic the compiler vectorises (the x86-64 baseline has no 32-bit
// vector multiply). Bit-exact everywhere.
#include "src/kernels/cpu/isa/multi/variants.h"

namespace relite::cpu::RELITE_ISA_NS {
namespace {

// One input row interpolated along x: h[ox * C + c] = (l << 11) + (r - l) * wx,
// the "top" / "bottom" terms of the formula above.
template <typename T>
void InterpolateRow(const T* __restrict row, const int32_t* lo, const int32_t* hi, const int32_t* weight, int64_t out_w,
                    int64_t channels, int32_t* __restrict h) {
  for (int64_t ox = 0; ox < out_w; ++ox) {
    const auto x = static_cast<size_t>(ox);
    const T* __restrict l = row + lo[x] * channels;
    const T* __restrict r = row + hi[x] * channels;
    const int32_t w = weight[x];
    int32_t* __restrict dst = h + ox * channels;
    for (int64_t c = 0; c < channels; ++c) {
      const int32_t vl = l[c], vr = r[c];
      dst[c] = vl * 2048 + (vr - vl) * w;
    }
  }
}

// out = ((top << 11) + (bottom - top) * wy + 2^21) >> 22 over a whole row.
template <typename T>
void BlendRows(const int32_t* __restrict top, const int32_t* __restrict bottom, int32_t wy, int64_t n,
               T* __restrict out) {
  for (int64_t i = 0; i < n; ++i) {
    const int32_t acc = top[i] * 2048 + (bottom[i] - top[i]) * wy;
    out[i] = static_cast<T>((acc + (1 << 21)) >> 22);
  }
}

}  // namespace

void FillResizeQ11Kernels(CpuKernels* k) {
  k->q_resize_row_u8 = InterpolateRow<uint8_t>;
  k->q_resize_row_s8 = InterpolateRow<int8_t>;
  k->q_resize_blend_u8 = BlendRows<uint8_t>;
  k->q_resize_blend_s8 = BlendRows<int8_t>;
}

}  // namespace relite::cpu::RELITE_ISA_NS
