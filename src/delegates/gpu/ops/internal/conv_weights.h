// Weight repacking shared by the convolution emitters.
#pragma once

#include <cstddef>

namespace relite::gpu {

// OHWI float weights -> [So][KH][KW][Si][4 input channels] float4s of 4
// output channels (zeros past Cout and Cin).
inline size_t PackedConvWeightsCount(int cout, int kh, int kw, int cin) {
  return static_cast<size_t>((cout + 3) / 4) * kh * kw * ((cin + 3) / 4) * 16;
}

inline void PackConvWeights(const float* ohwi, int cout, int kh, int kw, int cin, float* dst) {
  const int so_n = (cout + 3) / 4, si_n = (cin + 3) / 4;
  for (int so = 0; so < so_n; ++so)
    for (int ky = 0; ky < kh; ++ky)
      for (int kx = 0; kx < kw; ++kx)
        for (int si = 0; si < si_n; ++si)
          for (int k = 0; k < 4; ++k)      // input channel within the slice
            for (int j = 0; j < 4; ++j) {  // output channel within the slice
              const int o = so * 4 + j, i = si * 4 + k;
              const size_t idx = ((((static_cast<size_t>(so) * kh + ky) * kw + kx) * si_n + si) * 4 + k) * 4 + j;
              dst[idx] = (o < cout && i < cin) ? ohwi[((static_cast<size_t>(o) * kh + ky) * kw + kx) * cin + i] : 0.f;
            }
}

}  // namespace relite::gpu
