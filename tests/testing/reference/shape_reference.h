// Naive reference implementations of the shape-group ops (pure data
// movement), written straight from the op definitions with one
// multi-index per element, for the kernel tests to compare against.
#pragma once

#include <cstdint>
#include <random>
#include <type_traits>
#include <utility>
#include <vector>

#include "relite/tensor.h"

namespace relite::testing::reference {

inline int64_t Count(const Shape& shape) {
  int64_t n = 1;
  for (const int32_t d : shape) n *= d;
  return n;
}

// Multi-index of row-major element `flat` of `shape`.
inline std::vector<int64_t> Unravel(int64_t flat, const Shape& shape) {
  std::vector<int64_t> idx(shape.size());
  for (size_t i = shape.size(); i-- > 0;) {
    idx[i] = flat % shape[i];
    flat /= shape[i];
  }
  return idx;
}

inline int64_t Ravel(const std::vector<int64_t>& idx, const Shape& shape) {
  int64_t flat = 0;
  for (size_t i = 0; i < shape.size(); ++i) flat = flat * shape[i] + idx[i];
  return flat;
}

template <typename T>
struct Tensor {
  Shape shape;
  std::vector<T> data;
};

template <typename T>
Tensor<T> Concat(const std::vector<Tensor<T>>& inputs, int axis) {
  Tensor<T> out;
  out.shape = inputs[0].shape;
  out.shape[static_cast<size_t>(axis)] = 0;
  for (const auto& in : inputs) out.shape[static_cast<size_t>(axis)] += in.shape[static_cast<size_t>(axis)];
  out.data.resize(static_cast<size_t>(Count(out.shape)));
  for (int64_t i = 0; i < Count(out.shape); ++i) {
    std::vector<int64_t> idx = Unravel(i, out.shape);
    int64_t a = idx[static_cast<size_t>(axis)];
    for (const auto& in : inputs) {
      if (a < in.shape[static_cast<size_t>(axis)]) {
        idx[static_cast<size_t>(axis)] = a;
        out.data[static_cast<size_t>(i)] = in.data[static_cast<size_t>(Ravel(idx, in.shape))];
        break;
      }
      a -= in.shape[static_cast<size_t>(axis)];
    }
  }
  return out;
}

// pads[d] = {before, after}.
template <typename T>
Tensor<T> Pad(const Tensor<T>& in, const std::vector<std::pair<int, int>>& pads, T value) {
  Tensor<T> out;
  for (size_t d = 0; d < in.shape.size(); ++d) out.shape.push_back(in.shape[d] + pads[d].first + pads[d].second);
  out.data.assign(static_cast<size_t>(Count(out.shape)), value);
  for (int64_t i = 0; i < Count(out.shape); ++i) {
    std::vector<int64_t> idx = Unravel(i, out.shape);
    bool inside = true;
    for (size_t d = 0; d < idx.size(); ++d) {
      idx[d] -= pads[d].first;
      inside = inside && idx[d] >= 0 && idx[d] < in.shape[d];
    }
    if (inside) out.data[static_cast<size_t>(i)] = in.data[static_cast<size_t>(Ravel(idx, in.shape))];
  }
  return out;
}

template <typename T>
Tensor<T> Transpose(const Tensor<T>& in, const std::vector<int>& perm) {
  Tensor<T> out;
  for (const int p : perm) out.shape.push_back(in.shape[static_cast<size_t>(p)]);
  out.data.resize(static_cast<size_t>(Count(out.shape)));
  for (int64_t i = 0; i < Count(out.shape); ++i) {
    const std::vector<int64_t> o = Unravel(i, out.shape);
    std::vector<int64_t> src(o.size());
    for (size_t j = 0; j < perm.size(); ++j) src[static_cast<size_t>(perm[j])] = o[j];
    out.data[static_cast<size_t>(i)] = in.data[static_cast<size_t>(Ravel(src, in.shape))];
  }
  return out;
}

// size entries already resolved (no -1).
template <typename T>
Tensor<T> Slice(const Tensor<T>& in, const std::vector<int>& begin, const std::vector<int>& size) {
  Tensor<T> out;
  out.shape.assign(size.begin(), size.end());
  out.data.resize(static_cast<size_t>(Count(out.shape)));
  for (int64_t i = 0; i < Count(out.shape); ++i) {
    std::vector<int64_t> idx = Unravel(i, out.shape);
    for (size_t d = 0; d < idx.size(); ++d) idx[d] += begin[d];
    out.data[static_cast<size_t>(i)] = in.data[static_cast<size_t>(Ravel(idx, in.shape))];
  }
  return out;
}

struct StridedSliceSpec {
  std::vector<int> begin, end, strides;
  int begin_mask = 0, end_mask = 0, ellipsis_mask = 0, new_axis_mask = 0, shrink_axis_mask = 0;
  bool offset = false;
};

// Python/NumPy slicing: entries are walked left to right; the (explicit or
// implicit trailing) ellipsis covers the dimensions no other entry consumes.
// Returns false where TensorFlow reports an error.
template <typename T>
bool StridedSlice(const Tensor<T>& in, const StridedSliceSpec& spec, Tensor<T>* out) {
  const int n = static_cast<int>(spec.begin.size());
  const int rank = static_cast<int>(in.shape.size());
  enum Kind { kEllipsis, kNewAxis, kIndex, kRange };
  std::vector<Kind> kinds;
  int ellipses = 0;
  int consuming = 0;
  for (int i = 0; i < n; ++i) {
    const int bit = 1 << i;
    if (spec.ellipsis_mask & bit) {
      kinds.push_back(kEllipsis);
      ++ellipses;
    } else if (spec.new_axis_mask & bit) {
      kinds.push_back(kNewAxis);
    } else if (spec.shrink_axis_mask & bit) {
      kinds.push_back(kIndex);
      ++consuming;
    } else {
      kinds.push_back(kRange);
      ++consuming;
    }
  }
  if (ellipses > 1) return false;
  if (ellipses == 0) kinds.push_back(kEllipsis);
  if (consuming > rank) return false;

  std::vector<std::vector<int64_t>> picks;  // input indices per input dim
  out->shape.clear();
  int d = 0;
  for (size_t i = 0; i < kinds.size(); ++i) {
    if (kinds[i] == kEllipsis) {
      for (int k = 0; k < rank - consuming; ++k, ++d) {
        std::vector<int64_t> all;
        for (int64_t x = 0; x < in.shape[static_cast<size_t>(d)]; ++x) all.push_back(x);
        out->shape.push_back(in.shape[static_cast<size_t>(d)]);
        picks.push_back(all);
      }
      continue;
    }
    if (kinds[i] == kNewAxis) {
      out->shape.push_back(1);
      continue;
    }
    const int64_t dim = in.shape[static_cast<size_t>(d)];
    const int64_t b = spec.begin[i], e = spec.end[i], s = spec.strides[i];
    if (s == 0) return false;
    if (kinds[i] == kIndex) {
      const int64_t x = b < 0 ? b + dim : b;
      if (s < 0 || x < 0 || x >= dim) return false;
      picks.push_back({x});
      ++d;
      continue;
    }
    const bool bm = (spec.begin_mask >> i) & 1, em = (spec.end_mask >> i) & 1;
    int64_t start, stop;
    if (s > 0) {
      start = bm ? 0 : std::min<int64_t>(std::max<int64_t>(b < 0 ? b + dim : b, 0), dim);
      const int64_t raw = spec.offset ? e + start : e;
      stop = em ? dim : std::min<int64_t>(std::max<int64_t>(raw < 0 ? raw + dim : raw, 0), dim);
    } else {
      start = bm ? dim - 1 : std::min<int64_t>(std::max<int64_t>(b < 0 ? b + dim : b, -1), dim - 1);
      const int64_t raw = spec.offset ? e + start : e;
      stop = em ? -1 : std::min<int64_t>(std::max<int64_t>(raw < 0 ? raw + dim : raw, -1), dim - 1);
    }
    std::vector<int64_t> sel;
    for (int64_t x = start; s > 0 ? x < stop : x > stop; x += s) sel.push_back(x);
    out->shape.push_back(static_cast<int32_t>(sel.size()));
    picks.push_back(sel);
    ++d;
  }
  // Odometer over the picked indices of every input dimension.
  out->data.clear();
  Shape counts;
  for (const auto& p : picks) counts.push_back(static_cast<int32_t>(p.size()));
  for (int64_t i = 0; i < Count(counts); ++i) {
    const std::vector<int64_t> c = Unravel(i, counts);
    std::vector<int64_t> src(c.size());
    for (size_t k = 0; k < c.size(); ++k) src[k] = picks[k][static_cast<size_t>(c[k])];
    out->data.push_back(in.data[static_cast<size_t>(Ravel(src, in.shape))]);
  }
  return true;
}

// Splits along `axis` into parts of the given sizes.
template <typename T>
std::vector<Tensor<T>> Split(const Tensor<T>& in, int axis, const std::vector<int>& sizes) {
  std::vector<Tensor<T>> outs;
  int start = 0;
  for (const int s : sizes) {
    std::vector<int> begin(in.shape.size(), 0);
    std::vector<int> size(in.shape.begin(), in.shape.end());
    begin[static_cast<size_t>(axis)] = start;
    size[static_cast<size_t>(axis)] = s;
    outs.push_back(Slice(in, begin, size));
    start += s;
  }
  return outs;
}

template <typename T>
Tensor<T> Pack(const std::vector<Tensor<T>>& inputs, int axis) {
  std::vector<Tensor<T>> expanded = inputs;
  for (auto& t : expanded) t.shape.insert(t.shape.begin() + axis, 1);
  return Concat(expanded, axis);
}

template <typename T>
std::vector<Tensor<T>> Unpack(const Tensor<T>& in, int axis) {
  std::vector<Tensor<T>> outs = Split(in, axis, std::vector<int>(static_cast<size_t>(in.shape[static_cast<size_t>(axis)]), 1));
  for (auto& t : outs) t.shape.erase(t.shape.begin() + axis);
  return outs;
}

// Indices must be in range.
template <typename T, typename I>
Tensor<T> Gather(const Tensor<T>& params, const Tensor<I>& indices, int axis, int batch_dims) {
  Tensor<T> out;
  const int irank = static_cast<int>(indices.shape.size());
  out.shape.assign(params.shape.begin(), params.shape.begin() + axis);
  out.shape.insert(out.shape.end(), indices.shape.begin() + batch_dims, indices.shape.end());
  out.shape.insert(out.shape.end(), params.shape.begin() + axis + 1, params.shape.end());
  const int free_index_dims = irank - batch_dims;
  for (int64_t i = 0; i < Count(out.shape); ++i) {
    const std::vector<int64_t> o = Unravel(i, out.shape);
    std::vector<int64_t> iidx(o.begin(), o.begin() + batch_dims);
    iidx.insert(iidx.end(), o.begin() + axis, o.begin() + axis + free_index_dims);
    std::vector<int64_t> p(o.begin(), o.begin() + axis);
    p.push_back(static_cast<int64_t>(indices.data[static_cast<size_t>(Ravel(iidx, indices.shape))]));
    p.insert(p.end(), o.begin() + axis + free_index_dims, o.end());
    out.data.push_back(params.data[static_cast<size_t>(Ravel(p, params.shape))]);
  }
  return out;
}

template <typename T, typename I>
Tensor<T> GatherNd(const Tensor<T>& params, const Tensor<I>& indices) {
  Tensor<T> out;
  const int irank = static_cast<int>(indices.shape.size());
  const int depth = indices.shape.back();
  out.shape.assign(indices.shape.begin(), indices.shape.end() - 1);
  out.shape.insert(out.shape.end(), params.shape.begin() + depth, params.shape.end());
  for (int64_t i = 0; i < Count(out.shape); ++i) {
    const std::vector<int64_t> o = Unravel(i, out.shape);
    std::vector<int64_t> row(o.begin(), o.begin() + (irank - 1));
    std::vector<int64_t> p;
    for (int k = 0; k < depth; ++k) {
      row.push_back(k);
      p.push_back(static_cast<int64_t>(indices.data[static_cast<size_t>(Ravel(row, indices.shape))]));
      row.pop_back();
    }
    p.insert(p.end(), o.begin() + (irank - 1), o.end());
    out.data.push_back(params.data[static_cast<size_t>(Ravel(p, params.shape))]);
  }
  return out;
}

// NHWC.
template <typename T>
Tensor<T> DepthToSpace(const Tensor<T>& in, int bs) {
  const int n = in.shape[0], h = in.shape[1], w = in.shape[2], c = in.shape[3];
  const int oc = c / (bs * bs);
  Tensor<T> out{{n, h * bs, w * bs, oc}, {}};
  out.data.resize(static_cast<size_t>(Count(out.shape)));
  for (int b = 0; b < n; ++b)
    for (int y = 0; y < h * bs; ++y)
      for (int x = 0; x < w * bs; ++x)
        for (int k = 0; k < oc; ++k) {
          const int ic = ((y % bs) * bs + (x % bs)) * oc + k;
          out.data[static_cast<size_t>(Ravel({b, y, x, k}, out.shape))] =
              in.data[static_cast<size_t>(Ravel({b, y / bs, x / bs, ic}, in.shape))];
        }
  return out;
}

template <typename T>
Tensor<T> SpaceToDepth(const Tensor<T>& in, int bs) {
  const int n = in.shape[0], h = in.shape[1], w = in.shape[2], c = in.shape[3];
  Tensor<T> out{{n, h / bs, w / bs, c * bs * bs}, {}};
  out.data.resize(static_cast<size_t>(Count(out.shape)));
  for (int b = 0; b < n; ++b)
    for (int y = 0; y < h; ++y)
      for (int x = 0; x < w; ++x)
        for (int k = 0; k < c; ++k) {
          const int oc = ((y % bs) * bs + (x % bs)) * c + k;
          out.data[static_cast<size_t>(Ravel({b, y / bs, x / bs, oc}, out.shape))] =
              in.data[static_cast<size_t>(Ravel({b, y, x, k}, in.shape))];
        }
  return out;
}

// Seeded test data: floats in [-10, 10], integers over a range that
// exercises every byte of the element (bool tensors use uint8_t storage,
// values 0/1, when `is_bool`).
template <typename T>
std::vector<T> RandomValues(std::mt19937& rng, int64_t n, bool is_bool = false) {
  std::vector<T> v(static_cast<size_t>(n));
  for (auto& x : v) {
    if (is_bool) {
      x = static_cast<T>(rng() & 1);
    } else if constexpr (std::is_floating_point_v<T>) {
      x = static_cast<T>(std::uniform_real_distribution<double>(-10.0, 10.0)(rng));
    } else {
      x = static_cast<T>(static_cast<uint64_t>(rng()) << 32 | rng());
    }
  }
  return v;
}

template <typename T>
Tensor<T> RandomTensor(std::mt19937& rng, const Shape& shape, bool is_bool = false) {
  return Tensor<T>{shape, RandomValues<T>(rng, Count(shape), is_bool)};
}

inline Shape RandomShape(std::mt19937& rng, int rank, int min_dim, int max_dim) {
  Shape s(static_cast<size_t>(rank));
  for (auto& d : s) d = std::uniform_int_distribution<int>(min_dim, max_dim)(rng);
  return s;
}

}  // namespace relite::testing::reference
