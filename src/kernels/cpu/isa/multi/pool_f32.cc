// Float MAX_POOL_2D and AVERAGE_POOL_2D rows (NHWC), for one ISA: channels
// are the vector lanes, windows clipped to the input once per pixel.
#include "src/kernels/cpu/isa/multi/variants.h"
#include "src/kernels/cpu/isa/simd.h"

#include <array>
#include <utility>

namespace relite::cpu::RELITE_ISA_NS {
namespace {

struct MaxOp {
  // An empty window (impossible with TFLite's padding rules) yields the lowest value.
  static constexpr float kInit = -3.40282347e+38f;
  static constexpr bool kAverage = false;
  // A value wins only when greater, so NaNs are skipped.
  template <typename T>
  static T Combine(T acc, T v) { return v > acc ? v : acc; }
};
struct AverageOp {
  static constexpr float kInit = 0.f;
  static constexpr bool kAverage = true;
  template <typename T>
  static T Combine(T acc, T v) { return acc + v; }
};

// The window of one output position along one axis, clipped to the input:
// input index = origin + k for k in [begin, end).
struct PoolWindow {
  int32_t origin, begin, end;
};
inline PoolWindow Clip(int32_t out_index, int32_t stride, int32_t pad, int32_t filter, int32_t in_size) {
  const int32_t origin = out_index * stride - pad;
  const int32_t begin = origin < 0 ? -origin : 0;
  const int32_t end = in_size - origin < filter ? in_size - origin : filter;
  return {origin, begin, end};
}

inline constexpr int kChannelTile = 64;

// Channels [c0, c0 + kChannelTile) of one output pixel, the accumulators
// in registers.
template <class Op>
inline void PoolTile(const float* input, int64_t image_offset, int64_t in_w, int64_t channels, const PoolWindow& wy,
                     const PoolWindow& wx, int64_t c0, const PoolF32Job& j, float* out) {
  constexpr int kV = kChannelTile / kLanes;
  VecF acc[kV];
  for (int v = 0; v < kV; ++v) acc[v] = Splat<VecF>(Op::kInit);
  for (int32_t ky = wy.begin; ky < wy.end; ++ky) {
    const int64_t row_offset = image_offset + (static_cast<int64_t>(wy.origin) + ky) * in_w * channels;
    for (int32_t kx = wx.begin; kx < wx.end; ++kx) {
      const float* src = input + row_offset + (static_cast<int64_t>(wx.origin) + kx) * channels + c0;
      for (int v = 0; v < kV; ++v) acc[v] = Op::Combine(acc[v], Load<VecF>(src + v * kLanes));
    }
  }
  if constexpr (Op::kAverage) {
    const int32_t count = (wy.end - wy.begin > 0 ? wy.end - wy.begin : 0) * (wx.end - wx.begin > 0 ? wx.end - wx.begin : 0);
    if (count > 0) {
      const VecF divisor = Splat<VecF>(static_cast<float>(count));
      for (int v = 0; v < kV; ++v) acc[v] = acc[v] / divisor;
    }
  }
  if (j.clamp) {
    const VecF lo = Splat<VecF>(j.act_min), hi = Splat<VecF>(j.act_max);
    for (int v = 0; v < kV; ++v) acc[v] = Clamp(acc[v], lo, hi);
  }
  for (int v = 0; v < kV; ++v) Store<VecF>(out + c0 + v * kLanes, acc[v]);
}

// One vector of channels at c (`lanes` < kLanes: the masked last ones).
template <class Op, bool kMasked>
inline void PoolVector(const float* input, int64_t image_offset, int64_t in_w, int64_t channels, const PoolWindow& wy,
                       const PoolWindow& wx, int64_t c, int lanes, const PoolF32Job& j, float* out) {
  auto load = [lanes](const float* p) { return kMasked ? LoadFirst<VecF>(p, lanes) : Load<VecF>(p); };
  VecF acc = Splat<VecF>(Op::kInit);
  // Wide windows (global pooling) combine into four accumulators: one
  // chain of dependent adds over 16K pixels ran at the add's latency.
  VecF acc1 = acc, acc2 = acc, acc3 = acc;
  const bool wide = wx.end - wx.begin >= 8;
  for (int32_t ky = wy.begin; ky < wy.end; ++ky) {
    const float* row = input + image_offset + (static_cast<int64_t>(wy.origin) + ky) * in_w * channels + c;
    int32_t kx = wx.begin;
    for (; wide && kx + 4 <= wx.end; kx += 4) {
      const float* p = row + (static_cast<int64_t>(wx.origin) + kx) * channels;
      acc = Op::Combine(acc, load(p));
      acc1 = Op::Combine(acc1, load(p + channels));
      acc2 = Op::Combine(acc2, load(p + 2 * channels));
      acc3 = Op::Combine(acc3, load(p + 3 * channels));
    }
    for (; kx < wx.end; ++kx) acc = Op::Combine(acc, load(row + (static_cast<int64_t>(wx.origin) + kx) * channels));
  }
  if (wide) acc = Op::Combine(Op::Combine(acc, acc1), Op::Combine(acc2, acc3));
  if constexpr (Op::kAverage) {
    const int32_t count = (wy.end - wy.begin > 0 ? wy.end - wy.begin : 0) * (wx.end - wx.begin > 0 ? wx.end - wx.begin : 0);
    acc = acc / Splat<VecF>(count > 0 ? static_cast<float>(count) : 1.f);
  }
  if (j.clamp) acc = Clamp(acc, Splat<VecF>(j.act_min), Splat<VecF>(j.act_max));
  if (kMasked) {
    StoreFirst<VecF>(out + c, acc, lanes);
  } else {
    Store<VecF>(out + c, acc);
  }
}

// The last channels one at a time (ISAs without masked vector tails).
template <class Op>
inline void PoolScalars(const float* input, int64_t image_offset, int64_t in_w, int64_t channels, const PoolWindow& wy,
                        const PoolWindow& wx, int64_t c0, int64_t c1, const PoolF32Job& j, float* out) {
  for (int64_t c = c0; c < c1; ++c) {
    float acc = Op::kInit;
    for (int32_t ky = wy.begin; ky < wy.end; ++ky) {
      const float* row = input + image_offset + (static_cast<int64_t>(wy.origin) + ky) * in_w * channels + c;
      for (int32_t kx = wx.begin; kx < wx.end; ++kx) acc = Op::Combine(acc, row[(static_cast<int64_t>(wx.origin) + kx) * channels]);
    }
    if constexpr (Op::kAverage) {
      const int32_t count = (wy.end - wy.begin > 0 ? wy.end - wy.begin : 0) * (wx.end - wx.begin > 0 ? wx.end - wx.begin : 0);
      if (count > 0) acc = acc / static_cast<float>(count);
    }
    if (j.clamp) acc = ClampF(acc, j.act_min, j.act_max);
    out[c] = acc;
  }
}

// Calls pixel(image_offset, wy, wx, out) for every output pixel of output
// rows [begin, end) (rows of all images in order).
template <typename PixelFn>
inline __attribute__((always_inline)) void ForEachOutputPixel(const PoolF32Job& j, int64_t begin, int64_t end,
                                                              PixelFn&& pixel) {
  for (int64_t row = begin; row < end; ++row) {
    const int64_t b = row / j.out_h;
    const int32_t oy = static_cast<int32_t>(row - b * j.out_h);
    const int64_t image_offset = b * j.in_h * j.in_w * j.channels;
    const PoolWindow wy = Clip(oy, j.stride_h, j.pad_top, j.filter_h, j.in_h);
    for (int32_t ox = 0; ox < j.out_w; ++ox) {
      const PoolWindow wx = Clip(ox, j.stride_w, j.pad_left, j.filter_w, j.in_w);
      pixel(image_offset, wy, wx, j.output + (row * j.out_w + ox) * j.channels);
    }
  }
}

// Fewer channels than a tile (BlazeFace's 28 and 42): a pixel's kV
// vectors in registers at once, the last one masked where kMasked (its
// `tail` lanes). Vector by vector, each pixel re-walked its window once per
// vector: 28 channels cost ~100 cycles per 2x2 window on AVX2.
template <class Op, int kV, bool kMasked>
void PoolRowsFewChannels(const PoolF32Job& j, int64_t begin, int64_t end) {
  const int64_t channels = j.channels;
  const int tail = static_cast<int>(channels - (kV - 1) * kLanes);
  auto load = [tail](const float* p, int v) {
    return kMasked && v == kV - 1 ? LoadFirst<VecF>(p + v * kLanes, tail) : Load<VecF>(p + v * kLanes);
  };
  ForEachOutputPixel(j, begin, end, [&](int64_t image_offset, const PoolWindow& wy, const PoolWindow& wx, float* out) {
    VecF acc[kV];
#pragma GCC unroll 16
    for (int v = 0; v < kV; ++v) acc[v] = Splat<VecF>(Op::kInit);
    for (int32_t ky = wy.begin; ky < wy.end; ++ky) {
      const float* src_row = j.input + image_offset + (static_cast<int64_t>(wy.origin) + ky) * j.in_w * channels;
      for (int32_t kx = wx.begin; kx < wx.end; ++kx) {
        const float* src = src_row + (static_cast<int64_t>(wx.origin) + kx) * channels;
#pragma GCC unroll 16
        for (int v = 0; v < kV; ++v) acc[v] = Op::Combine(acc[v], load(src, v));
      }
    }
    if constexpr (Op::kAverage) {
      const int32_t count =
          (wy.end - wy.begin > 0 ? wy.end - wy.begin : 0) * (wx.end - wx.begin > 0 ? wx.end - wx.begin : 0);
      const VecF divisor = Splat<VecF>(count > 0 ? static_cast<float>(count) : 1.f);
#pragma GCC unroll 16
      for (int v = 0; v < kV; ++v) acc[v] = acc[v] / divisor;
    }
    if (j.clamp) {
      const VecF lo = Splat<VecF>(j.act_min), hi = Splat<VecF>(j.act_max);
#pragma GCC unroll 16
      for (int v = 0; v < kV; ++v) acc[v] = Clamp(acc[v], lo, hi);
    }
#pragma GCC unroll 16
    for (int v = 0; v < kV; ++v) {
      if (kMasked && v == kV - 1) {
        StoreFirst<VecF>(out + v * kLanes, acc[v], tail);
      } else {
        Store<VecF>(out + v * kLanes, acc[v]);
      }
    }
  });
}

using PoolRowsFn = void (*)(const PoolF32Job&, int64_t, int64_t);

// PoolRowsFewChannels by vector count (index kV - 1), full or masked last.
template <class Op, bool kMasked, int... kIndex>
constexpr auto FewChannelRows(std::integer_sequence<int, kIndex...>) {
  return std::array<PoolRowsFn, sizeof...(kIndex)>{PoolRowsFewChannels<Op, kIndex + 1, kMasked>...};
}

template <class Op>
void PoolRows(const PoolF32Job& j, int64_t begin, int64_t end) {
  const int64_t channels = j.channels;
  constexpr int kMaxVectors = kChannelTile / kLanes;
  // Wide windows (global pooling) keep the vector-by-vector path and its
  // four accumulators per vector.
  if (channels > 0 && channels < kChannelTile && j.filter_w < 8 && (kMaskedTails || channels % kLanes == 0)) {
    static constexpr auto kFull = FewChannelRows<Op, false>(std::make_integer_sequence<int, kMaxVectors>{});
    static constexpr auto kMaskedLast = FewChannelRows<Op, true>(std::make_integer_sequence<int, kMaxVectors>{});
    const int vectors = static_cast<int>((channels + kLanes - 1) / kLanes);
    (channels % kLanes == 0 ? kFull : kMaskedLast)[vectors - 1](j, begin, end);
    return;
  }
  ForEachOutputPixel(j, begin, end, [&](int64_t image_offset, const PoolWindow& wy, const PoolWindow& wx, float* out) {
    int64_t c = 0;
    for (; c + kChannelTile <= channels; c += kChannelTile) {
      PoolTile<Op>(j.input, image_offset, j.in_w, channels, wy, wx, c, j, out);
    }
    for (; c + kLanes <= channels; c += kLanes) {
      PoolVector<Op, false>(j.input, image_offset, j.in_w, channels, wy, wx, c, kLanes, j, out);
    }
    if (c == channels) return;
    if constexpr (kMaskedTails) {
      PoolVector<Op, true>(j.input, image_offset, j.in_w, channels, wy, wx, c, static_cast<int>(channels - c), j, out);
    } else {
      PoolScalars<Op>(j.input, image_offset, j.in_w, channels, wy, wx, c, channels, j, out);
    }
  });
}

}  // namespace

void FillPoolKernels(CpuKernels* k) {
  k->max_pool_f32_rows = PoolRows<MaxOp>;
  k->average_pool_f32_rows = PoolRows<AverageOp>;
}

}  // namespace relite::cpu::RELITE_ISA_NS
