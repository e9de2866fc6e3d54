// Naive reference implementations of the reduce-group ops (pooling,
// reductions, softmax, arg max, resizing), written straight from the op
// definitions with plain loops and double accumulation, for the kernel tests
// to compare against.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <set>
#include <vector>

namespace relite::testing::reference {

// ---------------------------------------------------------------- pooling

struct PoolGeometry {
  int batch = 1, in_h = 1, in_w = 1, channels = 1;
  int filter_h = 1, filter_w = 1, stride_h = 1, stride_w = 1;
  bool same = true;
  // Derived by ComputePoolOutput.
  int out_h = 0, out_w = 0, pad_top = 0, pad_left = 0;
};

// TFLite's output extent and leading padding of one dimension.
inline void PoolOutputDim(bool same, int in, int filter, int stride, int* out, int* pad) {
  *out = same ? (in + stride - 1) / stride : (in - filter + stride) / stride;
  if (*out < 0) *out = 0;
  const int total = (*out - 1) * stride + filter - in;
  *pad = total > 0 ? total / 2 : 0;
}

inline void ComputePoolOutput(PoolGeometry* g) {
  PoolOutputDim(g->same, g->in_h, g->filter_h, g->stride_h, &g->out_h, &g->pad_top);
  PoolOutputDim(g->same, g->in_w, g->filter_w, g->stride_w, &g->out_w, &g->pad_left);
}

// Average (over in-bounds elements only) or max pooling, NHWC, then clamp.
inline std::vector<float> Pool2D(const PoolGeometry& g, const std::vector<float>& input, bool average, float lo,
                                 float hi) {
  std::vector<float> out(static_cast<size_t>(g.batch) * g.out_h * g.out_w * g.channels);
  for (int b = 0; b < g.batch; ++b) {
    for (int oy = 0; oy < g.out_h; ++oy) {
      for (int ox = 0; ox < g.out_w; ++ox) {
        for (int c = 0; c < g.channels; ++c) {
          double sum = 0.0;
          float mx = std::numeric_limits<float>::lowest();
          int count = 0;
          for (int ky = 0; ky < g.filter_h; ++ky) {
            for (int kx = 0; kx < g.filter_w; ++kx) {
              const int iy = oy * g.stride_h - g.pad_top + ky;
              const int ix = ox * g.stride_w - g.pad_left + kx;
              if (iy < 0 || iy >= g.in_h || ix < 0 || ix >= g.in_w) continue;
              const float v = input[((static_cast<size_t>(b) * g.in_h + iy) * g.in_w + ix) * g.channels + c];
              sum += v;
              mx = std::max(mx, v);
              ++count;
            }
          }
          float v = average ? static_cast<float>(count > 0 ? sum / count : 0.0) : mx;
          v = std::min(std::max(v, lo), hi);
          out[((static_cast<size_t>(b) * g.out_h + oy) * g.out_w + ox) * g.channels + c] = v;
        }
      }
    }
  }
  return out;
}

// ------------------------------------------------------------- reductions

// Axes normalised to [0, rank), duplicates removed.
inline std::set<int> NormalizeAxes(const std::vector<int>& axes, int rank) {
  std::set<int> s;
  for (int a : axes) s.insert(a < 0 ? a + rank : a);
  return s;
}

inline std::vector<int> ReducedShape(const std::vector<int>& shape, const std::vector<int>& axes, bool keep_dims) {
  const std::set<int> r = NormalizeAxes(axes, static_cast<int>(shape.size()));
  std::vector<int> out;
  for (int d = 0; d < static_cast<int>(shape.size()); ++d) {
    if (r.count(d)) {
      if (keep_dims) out.push_back(1);
    } else {
      out.push_back(shape[static_cast<size_t>(d)]);
    }
  }
  return out;
}

enum class ReduceKind { kSum, kMean, kMax };

// For every input element, its output element is found by dropping the
// reduced coordinates; sums are kept in double (int64 for integers).
template <typename T>
std::vector<T> Reduce(const std::vector<T>& input, const std::vector<int>& shape, const std::vector<int>& axes,
                      ReduceKind kind) {
  const int rank = static_cast<int>(shape.size());
  const std::set<int> r = NormalizeAxes(axes, rank);
  size_t out_size = 1, count = 1;
  for (int d = 0; d < rank; ++d) {
    if (r.count(d)) {
      count *= static_cast<size_t>(shape[static_cast<size_t>(d)]);
    } else {
      out_size *= static_cast<size_t>(shape[static_cast<size_t>(d)]);
    }
  }
  using Wide = std::conditional_t<std::is_floating_point_v<T>, double, int64_t>;
  std::vector<Wide> sums(out_size, Wide(0));
  std::vector<T> maxes(out_size, std::numeric_limits<T>::lowest());
  std::vector<int> idx(static_cast<size_t>(rank), 0);
  for (size_t i = 0; i < input.size(); ++i) {
    // idx = coordinates of element i.
    size_t rem = i;
    for (int d = rank - 1; d >= 0; --d) {
      idx[static_cast<size_t>(d)] = static_cast<int>(rem % static_cast<size_t>(shape[static_cast<size_t>(d)]));
      rem /= static_cast<size_t>(shape[static_cast<size_t>(d)]);
    }
    size_t o = 0;
    for (int d = 0; d < rank; ++d) {
      if (r.count(d)) continue;
      o = o * static_cast<size_t>(shape[static_cast<size_t>(d)]) + static_cast<size_t>(idx[static_cast<size_t>(d)]);
    }
    sums[o] += static_cast<Wide>(input[i]);
    if (input[i] > maxes[o]) maxes[o] = input[i];
  }
  std::vector<T> out(out_size);
  for (size_t o = 0; o < out_size; ++o) {
    switch (kind) {
      case ReduceKind::kSum: out[o] = static_cast<T>(sums[o]); break;
      case ReduceKind::kMean:
        out[o] = static_cast<T>(count > 0 ? sums[o] / static_cast<Wide>(count) : sums[o]);
        break;
      case ReduceKind::kMax: out[o] = maxes[o]; break;
    }
  }
  return out;
}

// ---------------------------------------------------------------- softmax

inline std::vector<float> Softmax(const std::vector<float>& input, int depth, float beta) {
  std::vector<float> out(input.size());
  for (size_t row = 0; row * depth < input.size(); ++row) {
    const float* x = input.data() + row * depth;
    double m = -std::numeric_limits<double>::infinity();
    for (int i = 0; i < depth; ++i) m = std::max(m, static_cast<double>(beta) * x[i]);
    double sum = 0.0;
    for (int i = 0; i < depth; ++i) sum += std::exp(static_cast<double>(beta) * x[i] - m);
    for (int i = 0; i < depth; ++i) {
      out[row * depth + i] = static_cast<float>(std::exp(static_cast<double>(beta) * x[i] - m) / sum);
    }
  }
  return out;
}

// ---------------------------------------------------------------- arg max

// First index of the maximum along `axis` (a value wins only when greater).
template <typename T>
std::vector<int64_t> ArgMax(const std::vector<T>& input, const std::vector<int>& shape, int axis) {
  size_t outer = 1, inner = 1;
  for (int d = 0; d < axis; ++d) outer *= static_cast<size_t>(shape[static_cast<size_t>(d)]);
  for (size_t d = static_cast<size_t>(axis) + 1; d < shape.size(); ++d) inner *= static_cast<size_t>(shape[d]);
  const size_t n = static_cast<size_t>(shape[static_cast<size_t>(axis)]);
  std::vector<int64_t> out(outer * inner);
  for (size_t o = 0; o < outer; ++o) {
    for (size_t i = 0; i < inner; ++i) {
      size_t best = 0;
      for (size_t a = 1; a < n; ++a) {
        if (input[(o * n + a) * inner + i] > input[(o * n + best) * inner + i]) best = a;
      }
      out[o * inner + i] = static_cast<int64_t>(best);
    }
  }
  return out;
}

// --------------------------------------------------------------- resizing

inline float ResizeScale(int in, int out, bool align_corners) {
  return (align_corners && out > 1) ? static_cast<float>(in - 1) / static_cast<float>(out - 1)
                                    : static_cast<float>(in) / static_cast<float>(out);
}

// TFLite's bilinear rule, term by term.
inline std::vector<float> ResizeBilinear(const std::vector<float>& input, int batch, int in_h, int in_w, int channels,
                                         int out_h, int out_w, bool align_corners, bool half_pixel) {
  const float sy = ResizeScale(in_h, out_h, align_corners);
  const float sx = ResizeScale(in_w, out_w, align_corners);
  auto at = [&](int b, int y, int x, int c) {
    return input[((static_cast<size_t>(b) * in_h + y) * in_w + x) * channels + c];
  };
  std::vector<float> out(static_cast<size_t>(batch) * out_h * out_w * channels);
  for (int b = 0; b < batch; ++b) {
    for (int y = 0; y < out_h; ++y) {
      const float fy = half_pixel ? (y + 0.5f) * sy - 0.5f : y * sy;
      const int y0 = std::max(static_cast<int>(std::floor(fy)), 0);
      const int y1 = std::min(static_cast<int>(std::ceil(fy)), in_h - 1);
      for (int x = 0; x < out_w; ++x) {
        const float fx = half_pixel ? (x + 0.5f) * sx - 0.5f : x * sx;
        const int x0 = std::max(static_cast<int>(std::floor(fx)), 0);
        const int x1 = std::min(static_cast<int>(std::ceil(fx)), in_w - 1);
        const double dy = fy - y0, dx = fx - x0;
        for (int c = 0; c < channels; ++c) {
          const double v = at(b, y0, x0, c) * (1 - dy) * (1 - dx) + at(b, y1, x0, c) * dy * (1 - dx) +
                           at(b, y0, x1, c) * (1 - dy) * dx + at(b, y1, x1, c) * dy * dx;
          out[((static_cast<size_t>(b) * out_h + y) * out_w + x) * channels + c] = static_cast<float>(v);
        }
      }
    }
  }
  return out;
}

inline int NearestSource(int dst, int in, int out, bool align_corners, bool half_pixel) {
  const float scale = ResizeScale(in, out, align_corners);
  const float src = (static_cast<float>(dst) + (half_pixel ? 0.5f : 0.f)) * scale;
  int i = static_cast<int>(align_corners ? std::round(src) : std::floor(src));
  i = std::min(i, in - 1);
  if (half_pixel) i = std::max(i, 0);
  return i;
}

template <typename T>
std::vector<T> ResizeNearest(const std::vector<T>& input, int batch, int in_h, int in_w, int channels, int out_h,
                             int out_w, bool align_corners, bool half_pixel) {
  std::vector<T> out(static_cast<size_t>(batch) * out_h * out_w * channels);
  for (int b = 0; b < batch; ++b) {
    for (int y = 0; y < out_h; ++y) {
      const int sy = NearestSource(y, in_h, out_h, align_corners, half_pixel);
      for (int x = 0; x < out_w; ++x) {
        const int sx = NearestSource(x, in_w, out_w, align_corners, half_pixel);
        for (int c = 0; c < channels; ++c) {
          out[((static_cast<size_t>(b) * out_h + y) * out_w + x) * channels + c] =
              input[((static_cast<size_t>(b) * in_h + sy) * in_w + sx) * channels + c];
        }
      }
    }
  }
  return out;
}

}  // namespace relite::testing::reference
