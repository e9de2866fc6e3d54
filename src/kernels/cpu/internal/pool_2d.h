// Shape rules shared by AVERAGE_POOL_2D and MAX_POOL_2D (NHWC float32).
#pragma once

#include <algorithm>
#include <cstdint>

#include "relite/kernel.h"
#include "src/core/ops/params.h"
#include "src/kernels/cpu/isa/kernel_table.h"

namespace relite::cpu {

struct Pool2DGeometry {
  int32_t batch = 0, in_h = 0, in_w = 0, channels = 0;
  int32_t out_h = 0, out_w = 0;
  int32_t pad_top = 0, pad_left = 0;
  // > 1: a global pool split into this many bands of input rows (below).
  int global_bands = 1;
};

// A global pool (one window over the whole of a single image) has one output
// row, so threading over output rows left it to one thread, which then read
// the half of the image another core's kernel had just written: 1.7 us
// alone, 7.5 us after a two-thread convolution (16x16x128, Intel Xeon). Split
// into bands of whole input rows instead, each pooled by the thread that
// wrote them (the row share of the kernels before), then combined.
int GlobalPoolBands(const Pool2DParams& params, const Pool2DGeometry& g, int threads);

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

// A global pool in g.global_bands bands of input rows: band b's average (or
// maximum) per channel into scratch row b, then the bands' results combined
// in order (the average weighted by each band's rows) and clamped.
inline void RunGlobalPoolBands(KernelContext& ctx, const PoolF32Job& whole, const Pool2DGeometry& g,
                               PoolF32RowsFn rows_fn, bool max) {
  const int bands = g.global_bands;
  const int64_t channels = g.channels;
  float* partial = static_cast<float*>(ctx.scratch());
  auto band_rows = [&](int b) { return static_cast<int32_t>(int64_t{g.in_h} * b / bands); };
  ctx.ParallelFor(bands, 1, [&](int64_t begin, int64_t end) {
    for (int64_t b = begin; b < end; ++b) {
      PoolF32Job job = whole;
      const int32_t r0 = band_rows(static_cast<int>(b)), r1 = band_rows(static_cast<int>(b) + 1);
      job.input = whole.input + static_cast<int64_t>(r0) * g.in_w * channels;
      job.in_h = r1 - r0;
      job.filter_h = r1 - r0;
      job.clamp = false;
      job.output = partial + b * channels;
      rows_fn(job, 0, 1);
    }
  });
  for (int64_t c = 0; c < channels; ++c) {
    float v;
    if (max) {
      v = partial[c];
      for (int b = 1; b < bands; ++b) v = std::max(v, partial[b * channels + c]);
    } else {
      v = 0.f;
      for (int b = 0; b < bands; ++b) v += partial[b * channels + c] * static_cast<float>(band_rows(b + 1) - band_rows(b));
      v /= static_cast<float>(g.in_h);
    }
    whole.output[c] = whole.clamp ? std::min(std::max(v, whole.act_min), whole.act_max) : v;
  }
}

// The whole NHWC pooling, threaded over output rows; the rows run in the
// ISA's variant (src/kernels/cpu/isa/multi/pool_f32.cc).
inline void RunPool2D(KernelContext& ctx, const Pool2DParams& p, const Pool2DGeometry& g, bool max) {
  // An empty output can still have 2^40 rows (a zero width): nothing to visit.
  if (ctx.output(0).num_elements() == 0) return;
  PoolF32Job job;
  job.input = ctx.input(0).data_as<float>();
  job.output = ctx.output(0).data_as<float>();
  const ActivationRange range = GetActivationRange(p.activation);
  job.act_min = range.min;
  job.act_max = range.max;
  job.clamp = p.activation != Activation::kNone;
  job.in_h = g.in_h, job.in_w = g.in_w, job.channels = g.channels;
  job.out_h = g.out_h, job.out_w = g.out_w;
  job.filter_h = p.filter_h, job.filter_w = p.filter_w, job.stride_h = p.stride_h, job.stride_w = p.stride_w;
  job.pad_top = g.pad_top, job.pad_left = g.pad_left;
  const PoolF32RowsFn rows_fn = max ? Kernels().max_pool_f32_rows : Kernels().average_pool_f32_rows;
  if (g.global_bands > 1) {
    RunGlobalPoolBands(ctx, job, g, rows_fn, max);
    return;
  }
  const int64_t rows = static_cast<int64_t>(g.batch) * g.out_h;
  const int64_t row_work = std::max<int64_t>(1, static_cast<int64_t>(g.out_w) * p.filter_h * p.filter_w * g.channels);
  ctx.ParallelFor(rows, std::max<int64_t>(1, (1 << 15) / row_work),
                  [&](int64_t begin, int64_t end) { rows_fn(job, begin, end); });
}

}  // namespace pool_internal
}  // namespace relite::cpu
