// Naive reference implementations of the conv-group ops, written straight
// from the op definitions (NHWC float, double accumulation) for the kernel
// tests to compare against.
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>
#include <vector>

namespace relite::testing::reference {

struct ConvGeometry {
  int batch = 1, in_h = 1, in_w = 1, in_c = 1;
  int out_h = 1, out_w = 1, out_c = 1;
  int filter_h = 1, filter_w = 1;
  int stride_h = 1, stride_w = 1;
  int dilation_h = 1, dilation_w = 1;
  int pad_top = 0, pad_left = 0;
};

// TFLite's output size and leading padding of one spatial dimension.
inline void SamePadding(bool same, int in, int filter, int stride, int dilation, int* out, int* pad) {
  const int eff = (filter - 1) * dilation + 1;
  *out = same ? (in + stride - 1) / stride : (in - eff + stride) / stride;
  if (*out < 0) *out = 0;
  const int total = (*out - 1) * stride + eff - in;
  *pad = total > 0 ? total / 2 : 0;
}

inline float Clamp(double v, float lo, float hi) {
  const float f = static_cast<float>(v);
  return std::min(std::max(f, lo), hi);
}

// input [N,H,W,Cin], filter [Cout,KH,KW,Cin/groups], bias [Cout] or empty.
inline std::vector<float> Conv2D(const ConvGeometry& g, const std::vector<float>& input,
                                 const std::vector<float>& filter, const std::vector<float>& bias, float lo, float hi) {
  const int cin_g = static_cast<int>(filter.size() / (static_cast<size_t>(g.out_c) * g.filter_h * g.filter_w));
  const int groups = g.in_c / cin_g;
  const int cout_g = g.out_c / groups;
  std::vector<float> out(static_cast<size_t>(g.batch) * g.out_h * g.out_w * g.out_c);
  for (int b = 0; b < g.batch; ++b)
    for (int oy = 0; oy < g.out_h; ++oy)
      for (int ox = 0; ox < g.out_w; ++ox)
        for (int oc = 0; oc < g.out_c; ++oc) {
          const int group = oc / cout_g;
          double acc = bias.empty() ? 0.0 : bias[oc];
          for (int ky = 0; ky < g.filter_h; ++ky)
            for (int kx = 0; kx < g.filter_w; ++kx) {
              const int iy = oy * g.stride_h - g.pad_top + ky * g.dilation_h;
              const int ix = ox * g.stride_w - g.pad_left + kx * g.dilation_w;
              if (iy < 0 || iy >= g.in_h || ix < 0 || ix >= g.in_w) continue;
              for (int c = 0; c < cin_g; ++c) {
                const float x =
                    input[((static_cast<size_t>(b) * g.in_h + iy) * g.in_w + ix) * g.in_c + group * cin_g + c];
                const float w = filter[((static_cast<size_t>(oc) * g.filter_h + ky) * g.filter_w + kx) * cin_g + c];
                acc += static_cast<double>(x) * w;
              }
            }
          out[((static_cast<size_t>(b) * g.out_h + oy) * g.out_w + ox) * g.out_c + oc] = Clamp(acc, lo, hi);
        }
  return out;
}

// filter [1,KH,KW,Cout], Cout = Cin * multiplier; output channel oc reads input channel oc / multiplier.
inline std::vector<float> DepthwiseConv2D(const ConvGeometry& g, const std::vector<float>& input,
                                          const std::vector<float>& filter, const std::vector<float>& bias, float lo,
                                          float hi) {
  const int multiplier = g.out_c / g.in_c;
  std::vector<float> out(static_cast<size_t>(g.batch) * g.out_h * g.out_w * g.out_c);
  for (int b = 0; b < g.batch; ++b)
    for (int oy = 0; oy < g.out_h; ++oy)
      for (int ox = 0; ox < g.out_w; ++ox)
        for (int oc = 0; oc < g.out_c; ++oc) {
          const int ic = oc / multiplier;
          double acc = bias.empty() ? 0.0 : bias[oc];
          for (int ky = 0; ky < g.filter_h; ++ky)
            for (int kx = 0; kx < g.filter_w; ++kx) {
              const int iy = oy * g.stride_h - g.pad_top + ky * g.dilation_h;
              const int ix = ox * g.stride_w - g.pad_left + kx * g.dilation_w;
              if (iy < 0 || iy >= g.in_h || ix < 0 || ix >= g.in_w) continue;
              const float x = input[((static_cast<size_t>(b) * g.in_h + iy) * g.in_w + ix) * g.in_c + ic];
              const float w = filter[(static_cast<size_t>(ky) * g.filter_w + kx) * g.out_c + oc];
              acc += static_cast<double>(x) * w;
            }
          out[((static_cast<size_t>(b) * g.out_h + oy) * g.out_w + ox) * g.out_c + oc] = Clamp(acc, lo, hi);
        }
  return out;
}

// Transposed convolution: every input pixel scatters in x W[:, ky, kx, :] to
// output (iy * stride_h - pad_top + ky, ix * stride_w - pad_left + kx).
// weights [Cout,KH,KW,Cin]; g.out_* is the output size; dilation unused.
inline std::vector<float> TransposeConv(const ConvGeometry& g, const std::vector<float>& input,
                                        const std::vector<float>& weights, const std::vector<float>& bias, float lo,
                                        float hi) {
  std::vector<double> acc(static_cast<size_t>(g.batch) * g.out_h * g.out_w * g.out_c, 0.0);
  for (int b = 0; b < g.batch; ++b)
    for (int iy = 0; iy < g.in_h; ++iy)
      for (int ix = 0; ix < g.in_w; ++ix)
        for (int ky = 0; ky < g.filter_h; ++ky)
          for (int kx = 0; kx < g.filter_w; ++kx) {
            const int oy = iy * g.stride_h - g.pad_top + ky;
            const int ox = ix * g.stride_w - g.pad_left + kx;
            if (oy < 0 || oy >= g.out_h || ox < 0 || ox >= g.out_w) continue;
            for (int oc = 0; oc < g.out_c; ++oc)
              for (int ic = 0; ic < g.in_c; ++ic) {
                const float x = input[((static_cast<size_t>(b) * g.in_h + iy) * g.in_w + ix) * g.in_c + ic];
                const float w = weights[((static_cast<size_t>(oc) * g.filter_h + ky) * g.filter_w + kx) * g.in_c + ic];
                acc[((static_cast<size_t>(b) * g.out_h + oy) * g.out_w + ox) * g.out_c + oc] +=
                    static_cast<double>(x) * w;
              }
          }
  std::vector<float> out(acc.size());
  for (size_t i = 0; i < acc.size(); ++i) {
    const double bv = bias.empty() ? 0.0 : bias[i % static_cast<size_t>(g.out_c)];
    out[i] = Clamp(acc[i] + bv, lo, hi);
  }
  return out;
}

// input [batch, depth], weights [units, depth], bias [units] or empty.
inline std::vector<float> FullyConnected(int batch, int depth, int units, const std::vector<float>& input,
                                         const std::vector<float>& weights, const std::vector<float>& bias, float lo,
                                         float hi) {
  std::vector<float> out(static_cast<size_t>(batch) * units);
  for (int b = 0; b < batch; ++b)
    for (int u = 0; u < units; ++u) {
      double acc = bias.empty() ? 0.0 : bias[u];
      for (int k = 0; k < depth; ++k) {
        acc += static_cast<double>(input[static_cast<size_t>(b) * depth + k]) *
               weights[static_cast<size_t>(u) * depth + k];
      }
      out[static_cast<size_t>(b) * units + u] = Clamp(acc, lo, hi);
    }
  return out;
}

}  // namespace relite::testing::reference
