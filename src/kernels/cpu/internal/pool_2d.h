// Shape rules shared by AVERAGE_POOL_2D and MAX_POOL_2D (NHWC float32).
#pragma once

#include <algorithm>
#include <cstdint>

#include "relite/kernel.h"
#include "src/core/ops/params.h"
#include "src/kernels/cpu/internal/vec8f.h"

namespace relite::cpu {

struct Pool2DGeometry {
  int32_t batch = 0, in_h = 0, in_w = 0, channels = 0;
  int32_t out_h = 0, out_w = 0;
  int32_t pad_top = 0, pad_left = 0;
};

// Validates the node (1 input, 1 output, 4-D float32 NHWC, clamp activation),
// sets the output shape and fills `geometry`.
Status PreparePool2D(KernelContext& ctx, const Pool2DParams& params, Pool2DGeometry* geometry);

// The window of one output position along one axis, clipped to the input:
// input index = origin + k for k in [begin, end).
struct PoolWindow {
  int32_t origin;
  int32_t begin;
  int32_t end;
};
inline PoolWindow ClipPoolWindow(int32_t out_index, int32_t stride, int32_t pad, int32_t filter, int32_t in_size) {
  const int32_t origin = out_index * stride - pad;
  const int32_t begin = origin < 0 ? -origin : 0;
  const int32_t end = in_size - origin < filter ? in_size - origin : filter;
  return {origin, begin, end};
}

namespace pool_internal {

inline constexpr int kChannelTile = 64;

// Pools channels [c0, c0 + width) of one output pixel into `out` (width <=
// kChannelTile; kFixedWidth > 0 fixes it at compile time so the accumulators
// stay in vector registers). Op: kInit, Combine(acc, value), kAverage.
template <class Op, int kFixedWidth>
void PoolPixelChannels(const float* input, int64_t image_offset, int64_t in_w, int64_t channels, const PoolWindow& wy,
                       const PoolWindow& wx, int64_t c0, int width, ActivationRange range, bool clamp,
                       float* __restrict out) {
  const int w = kFixedWidth > 0 ? kFixedWidth : width;
  float acc[kChannelTile];
  for (int c = 0; c < w; ++c) acc[c] = Op::kInit;
  for (int32_t ky = wy.begin; ky < wy.end; ++ky) {
    const int64_t row_offset = image_offset + (static_cast<int64_t>(wy.origin) + ky) * in_w * channels;
    for (int32_t kx = wx.begin; kx < wx.end; ++kx) {
      const float* __restrict src = input + row_offset + (static_cast<int64_t>(wx.origin) + kx) * channels + c0;
      for (int c = 0; c < w; ++c) acc[c] = Op::Combine(acc[c], src[c]);
    }
  }
  if constexpr (Op::kAverage) {
    const int32_t count = std::max(0, wy.end - wy.begin) * std::max(0, wx.end - wx.begin);
    if (count > 0) {
      const float divisor = static_cast<float>(count);
      for (int c = 0; c < w; ++c) acc[c] = acc[c] / divisor;
    }
  }
  if (clamp) {
    for (int c = 0; c < w; ++c) acc[c] = std::min(std::max(acc[c], range.min), range.max);
  }
  for (int c = 0; c < w; ++c) out[c0 + c] = acc[c];
}

// Channels [c0, c0 + width) of one output pixel, eight at a time in vector
// registers (the last width % 8 masked): for channel counts below
// kChannelTile, where the fixed-width tile above does not apply.
template <class Op>
void PoolPixelVectors(const float* input, int64_t image_offset, int64_t in_w, int64_t channels, const PoolWindow& wy,
                      const PoolWindow& wx, int64_t c0, int width, ActivationRange range, bool clamp,
                      float* __restrict out) {
  const int32_t count = std::max(0, wy.end - wy.begin) * std::max(0, wx.end - wx.begin);
  const v8f divisor = Splat8(count > 0 ? static_cast<float>(count) : 1.f);
  const v8f lo = Splat8(range.min), hi = Splat8(range.max);
  auto block = [&](int64_t c, auto load, auto store) {
    v8f acc = Splat8(Op::kInit);
    // Wide windows (global pooling) combine into four accumulators: one
    // chain of dependent adds over 16K pixels ran at the add's latency.
    v8f acc1 = acc, acc2 = acc, acc3 = acc;
    for (int32_t ky = wy.begin; ky < wy.end; ++ky) {
      const float* row = input + image_offset + (static_cast<int64_t>(wy.origin) + ky) * in_w * channels + c;
      int32_t kx = wx.begin;
      for (; kx + 4 <= wx.end && wx.end - wx.begin >= 8; kx += 4) {
        const float* p = row + (static_cast<int64_t>(wx.origin) + kx) * channels;
        acc = Op::Combine(acc, load(p));
        acc1 = Op::Combine(acc1, load(p + channels));
        acc2 = Op::Combine(acc2, load(p + 2 * channels));
        acc3 = Op::Combine(acc3, load(p + 3 * channels));
      }
      for (; kx < wx.end; ++kx) {
        acc = Op::Combine(acc, load(row + (static_cast<int64_t>(wx.origin) + kx) * channels));
      }
    }
    if (wx.end - wx.begin >= 8) acc = Op::Combine(Op::Combine(acc, acc1), Op::Combine(acc2, acc3));
    if constexpr (Op::kAverage) acc = acc / divisor;
    if (clamp) acc = Clamp8(acc, lo, hi);
    store(out + c, acc);
  };
  int64_t c = c0;
  const int64_t end = c0 + width;
  for (; c + 8 <= end; c += 8) block(c, [](const float* p) { return Load8(p); }, [](float* p, v8f v) { Store8(p, v); });
  if (c == end) return;
#if defined(__AVX2__)
  const int lanes = static_cast<int>(end - c);
  const __m256i mask = FirstLanesMask(lanes);
  block(c, [mask](const float* p) { return LoadFirst(p, mask); }, [lanes](float* p, v8f v) { StoreFirst(p, v, lanes); });
#else
  PoolPixelChannels<Op, 0>(input, image_offset, in_w, channels, wy, wx, c, static_cast<int>(end - c), range, clamp,
                           out);
#endif
}

// The whole NHWC pooling, threaded over output rows.
template <class Op>
void RunPool2D(KernelContext& ctx, const Pool2DParams& p, const Pool2DGeometry& g) {
  // An empty output can still have 2^40 rows (a zero width): nothing to visit.
  if (ctx.output(0).num_elements() == 0) return;
  const float* input = ctx.input(0).data_as<float>();
  float* output = ctx.output(0).data_as<float>();
  const ActivationRange range = GetActivationRange(p.activation);
  const bool clamp = p.activation != Activation::kNone;
  const int64_t channels = g.channels;
  const int64_t rows = static_cast<int64_t>(g.batch) * g.out_h;
  const int64_t row_work = std::max<int64_t>(1, static_cast<int64_t>(g.out_w) * p.filter_h * p.filter_w * channels);
  ctx.ParallelFor(rows, std::max<int64_t>(1, (1 << 15) / row_work), [&](int64_t begin, int64_t end) {
    for (int64_t row = begin; row < end; ++row) {
      const int64_t b = row / g.out_h;
      const int32_t oy = static_cast<int32_t>(row - b * g.out_h);
      const int64_t image_offset = b * g.in_h * g.in_w * channels;
      const PoolWindow wy = ClipPoolWindow(oy, p.stride_h, g.pad_top, p.filter_h, g.in_h);
      for (int32_t ox = 0; ox < g.out_w; ++ox) {
        const PoolWindow wx = ClipPoolWindow(ox, p.stride_w, g.pad_left, p.filter_w, g.in_w);
        float* out = output + (row * g.out_w + ox) * channels;
        int64_t c0 = 0;
        for (; c0 + kChannelTile <= channels; c0 += kChannelTile) {
          PoolPixelChannels<Op, kChannelTile>(input, image_offset, g.in_w, channels, wy, wx, c0, kChannelTile, range,
                                              clamp, out);
        }
        if (c0 < channels) {
          PoolPixelVectors<Op>(input, image_offset, g.in_w, channels, wy, wx, c0, static_cast<int>(channels - c0),
                               range, clamp, out);
        }
      }
    }
  });
}

}  // namespace pool_internal
}  // namespace relite::cpu
