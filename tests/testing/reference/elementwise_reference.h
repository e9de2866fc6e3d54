// Naive reference implementations of the elementwise ops: per-element index
// arithmetic, double precision where it matters, no fast paths.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "relite/tensor.h"

namespace relite::testing::reference {

// Numpy broadcasting of two shapes; `ok` is false when they do not broadcast.
inline Shape BroadcastShape(const Shape& a, const Shape& b, bool* ok) {
  *ok = true;
  const size_t rank = std::max(a.size(), b.size());
  Shape out(rank);
  for (size_t i = 0; i < rank; ++i) {
    // i counts dims from the innermost.
    const int32_t da = i < a.size() ? a[a.size() - 1 - i] : 1;
    const int32_t db = i < b.size() ? b[b.size() - 1 - i] : 1;
    int32_t d;
    if (da == db) {
      d = da;
    } else if (da == 1) {
      d = db;
    } else if (db == 1) {
      d = da;
    } else {
      *ok = false;
      d = 0;
    }
    out[rank - 1 - i] = d;
  }
  return out;
}

// Flat index into a tensor of `in_shape` read at output coordinates `coords`
// (right-aligned, size-1 dims pinned to 0).
inline int64_t BroadcastSourceIndex(const Shape& in_shape, const std::vector<int64_t>& coords) {
  const size_t offset = coords.size() - in_shape.size();
  int64_t index = 0;
  for (size_t d = 0; d < in_shape.size(); ++d) {
    const int64_t c = in_shape[d] == 1 ? 0 : coords[offset + d];
    index = index * in_shape[d] + c;
  }
  return index;
}

template <typename Out, typename T, typename F>
std::vector<Out> BroadcastBinary(const Shape& a_shape, const std::vector<T>& a, const Shape& b_shape,
                                 const std::vector<T>& b, F f) {
  bool ok = false;
  const Shape out_shape = BroadcastShape(a_shape, b_shape, &ok);
  int64_t n = 1;
  for (int32_t d : out_shape) n *= d;
  std::vector<Out> out(static_cast<size_t>(ok ? n : 0));
  std::vector<int64_t> coords(out_shape.size());
  for (int64_t i = 0; i < static_cast<int64_t>(out.size()); ++i) {
    int64_t rest = i;
    for (size_t d = out_shape.size(); d-- > 0;) {
      coords[d] = rest % out_shape[d];
      rest /= out_shape[d];
    }
    out[static_cast<size_t>(i)] = f(a[static_cast<size_t>(BroadcastSourceIndex(a_shape, coords))],
                                    b[static_cast<size_t>(BroadcastSourceIndex(b_shape, coords))]);
  }
  return out;
}

template <typename Out, typename T, typename F>
std::vector<Out> Unary(const std::vector<T>& x, F f) {
  std::vector<Out> out(x.size());
  for (size_t i = 0; i < x.size(); ++i) out[i] = f(x[i]);
  return out;
}

// tflite ActivationFunctionType values: 0 NONE, 1 RELU, 2 RELU_N1_TO_1, 3 RELU6.
template <typename T>
T ApplyActivation(T v, int activation) {
  switch (activation) {
    case 1: return v < T(0) ? T(0) : v;
    case 2: return v < T(-1) ? T(-1) : (v > T(1) ? T(1) : v);
    case 3: return v < T(0) ? T(0) : (v > T(6) ? T(6) : v);
    default: return v;
  }
}

// IEEE half bits -> value, straight from the definition.
inline double HalfToDouble(uint16_t h) {
  const int sign = (h >> 15) & 1;
  const int exponent = (h >> 10) & 0x1f;
  const int mantissa = h & 0x3ff;
  double v;
  if (exponent == 0x1f) {
    v = mantissa != 0 ? std::numeric_limits<double>::quiet_NaN() : std::numeric_limits<double>::infinity();
  } else if (exponent == 0) {
    v = std::ldexp(static_cast<double>(mantissa), -24);
  } else {
    v = std::ldexp(static_cast<double>(1024 + mantissa), exponent - 25);
  }
  return sign ? -v : v;
}

// Nearest half (ties to the even bit pattern) by scanning all finite halves
// of the right sign; overflow at >= 65520 gives inf, NaN a quiet NaN.
inline uint16_t DoubleToHalf(double x) {
  if (std::isnan(x)) return 0x7e00;
  const uint16_t sign = std::signbit(x) ? 0x8000 : 0;
  const double ax = std::fabs(x);
  if (ax >= 65520.0) return sign | 0x7c00;
  uint16_t best = 0;
  double best_diff = ax;
  for (uint16_t h = 1; h < 0x7c00; ++h) {
    const double diff = std::fabs(HalfToDouble(h) - ax);
    if (diff < best_diff || (diff == best_diff && (h & 1) == 0)) {
      best = h;
      best_diff = diff;
    }
  }
  return sign | best;
}

// real = scale * (q - zero_point), per tensor or along `axis`.
template <typename Q>
std::vector<float> Dequantize(const Shape& shape, const std::vector<Q>& q, const std::vector<float>& scales,
                              const std::vector<int64_t>& zero_points, int axis) {
  std::vector<float> out(q.size());
  int64_t inner = 1;
  for (size_t d = static_cast<size_t>(axis) + 1; d < shape.size(); ++d) inner *= shape[d];
  for (size_t i = 0; i < q.size(); ++i) {
    const size_t c = scales.size() == 1 ? 0 : static_cast<size_t>((static_cast<int64_t>(i) / inner) % shape[static_cast<size_t>(axis)]);
    const int64_t zp = zero_points.empty() ? 0 : zero_points[zero_points.size() == 1 ? 0 : c];
    out[i] = static_cast<float>(static_cast<double>(scales[c]) * static_cast<double>(static_cast<int64_t>(q[i]) - zp));
  }
  return out;
}

}  // namespace relite::testing::reference
