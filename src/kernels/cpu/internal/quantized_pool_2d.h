// Prepare shared by the quantized AVERAGE_POOL_2D and MAX_POOL_2D (NHWC
// uint8 / int8 / int16): validation, output shape and padding (TFLite's
// rules, as for float), the output's quantization.
#pragma once

#include <string>

#include "src/kernels/cpu/internal/pool_2d.h"
#include "src/kernels/cpu/internal/quantized_lut.h"

namespace relite::cpu {

inline Status PrepareQuantizedPool2D(KernelContext& ctx, const Pool2DParams& params, Pool2DGeometry* g,
                                     ScaleZeroPoint* out_q) {
  if (ctx.num_inputs() != 1 || !ctx.has_input(0)) {
    return ctx.Error("expects 1 input, got " + std::to_string(ctx.num_inputs()));
  }
  if (ctx.num_outputs() != 1) return ctx.Error("expects 1 output, got " + std::to_string(ctx.num_outputs()));
  const Tensor& input = ctx.input(0);
  const Tensor& output = ctx.output(0);
  if (!IsQuantizedIntType(input.type)) return ctx.Error("unexpected input type " + DataTypeName(input.type));
  if (output.type != input.type) {
    return ctx.Error("output type " + DataTypeName(output.type) + " differs from input type " +
                     DataTypeName(input.type));
  }
  if (input.rank() != 4) return ctx.Error("input must be 4-D NHWC, got shape " + ShapeToString(input.shape));
  if (!IsClampActivation(params.activation)) {
    return ctx.Unsupported(std::string("fused activation ") + ActivationName(params.activation) +
                           " is not supported");
  }
  ScaleZeroPoint in_q;
  RELITE_RETURN_IF_ERROR(GetPerTensorQuant(ctx, input, "input", &in_q));
  RELITE_RETURN_IF_ERROR(GetPerTensorQuant(ctx, output, "output", out_q));
  g->batch = input.dim(0);
  g->in_h = input.dim(1);
  g->in_w = input.dim(2);
  g->channels = input.dim(3);
  RELITE_ASSIGN_OR_RETURN(const PaddedDim h, ComputeWindow(ctx.node(), params.padding, g->in_h, params.filter_h, params.stride_h, 1));
  RELITE_ASSIGN_OR_RETURN(const PaddedDim w, ComputeWindow(ctx.node(), params.padding, g->in_w, params.filter_w, params.stride_w, 1));
  g->out_h = h.out;
  g->out_w = w.out;
  g->pad_top = h.pad_before;
  g->pad_left = w.pad_before;
  return ctx.ResizeOutput(0, {g->batch, g->out_h, g->out_w, g->channels});
}

// Runs pixel(row_index, oy, ox, wy, wx) for every output pixel, threaded over
// output rows (batch * out_h).
template <class PixelFn>
void ForEachPoolPixel(KernelContext& ctx, const Pool2DParams& p, const Pool2DGeometry& g, PixelFn&& pixel) {
  // An empty output can still have 2^40 rows (a zero width): nothing to visit.
  if (ctx.output(0).num_elements() == 0) return;
  const int64_t rows = static_cast<int64_t>(g.batch) * g.out_h;
  const int64_t row_work =
      std::max<int64_t>(1, static_cast<int64_t>(g.out_w) * p.filter_h * p.filter_w * g.channels);
  ctx.ParallelFor(rows, std::max<int64_t>(1, (1 << 15) / row_work), [&](int64_t begin, int64_t end) {
    for (int64_t row = begin; row < end; ++row) {
      const int64_t b = row / g.out_h;
      const auto oy = static_cast<int32_t>(row - b * g.out_h);
      const PoolWindow wy = ClipPoolWindow(oy, p.stride_h, g.pad_top, p.filter_h, g.in_h);
      for (int32_t ox = 0; ox < g.out_w; ++ox) {
        const PoolWindow wx = ClipPoolWindow(ox, p.stride_w, g.pad_left, p.filter_w, g.in_w);
        pixel(b, row, ox, wy, wx);
      }
    }
  });
}

}  // namespace relite::cpu
