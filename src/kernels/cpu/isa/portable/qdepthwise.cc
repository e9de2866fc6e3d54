// The 8-bit DEPTHWISE_CONV_2D rows in plain C++ (see
// src/kernels/cpu/quantized/depthwise_conv_2d.cc): every channel from the
// unpacked weights, with the vector variants' integer sums and
// requantization, so the results are bit-exact with theirs.
#include "src/kernels/cpu/internal/round_half_even.h"
#include "src/kernels/cpu/isa/multi/variants.h"

namespace relite::cpu::RELITE_ISA_NS {

void QDepthwiseRow(const QDepthwiseJob& j, int b, int oy, const uint8_t** taps) {
  const size_t image = static_cast<size_t>(j.in_h) * j.in_w * j.in_c;
  const float lo = static_cast<float>(j.qmin - j.out_zero_point);
  const float hi = static_cast<float>(j.qmax - j.out_zero_point);
  for (int ox = 0; ox < j.out_w; ++ox) {
    for (int ky = 0; ky < j.filter_h; ++ky) {
      const int iy = oy * j.stride_h - j.pad_top + ky * j.dilation_h;
      for (int kx = 0; kx < j.filter_w; ++kx) {
        const int ix = ox * j.stride_w - j.pad_left + kx * j.dilation_w;
        const bool inside = iy >= 0 && iy < j.in_h && ix >= 0 && ix < j.in_w;
        taps[ky * j.filter_w + kx] =
            inside ? j.input + b * image + (static_cast<size_t>(iy) * j.in_w + ix) * j.in_c : j.zp_row;
      }
    }
    uint8_t* out = j.output + ((static_cast<size_t>(b) * j.out_h + oy) * j.out_w + ox) * j.out_c;
    for (int o = 0; o < j.out_c; ++o) {
      const int c = o / j.multiplier;
      uint32_t sum = static_cast<uint32_t>(j.bias[o]);  // wraps like the vector lanes
      for (int t = 0; t < j.taps; ++t) {
        const int32_t x = static_cast<uint8_t>(taps[t][c] ^ j.xor_mask);
        sum += static_cast<uint32_t>(x * j.wplain[static_cast<size_t>(t) * j.out_c + o]);
      }
      float f = static_cast<float>(static_cast<int32_t>(sum)) * j.scale[o];
      f = f < lo ? lo : f;
      f = f > hi ? hi : f;
      out[o] = static_cast<uint8_t>(RoundHalfEvenSmall(f) + j.out_zero_point);
    }
  }
}

}  // namespace relite::cpu::RELITE_ISA_NS
