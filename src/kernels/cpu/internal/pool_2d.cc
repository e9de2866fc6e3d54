#include "src/kernels/cpu/internal/pool_2d.h"

#include <string>

namespace relite::cpu {

int GlobalPoolBands(const Pool2DParams& params, const Pool2DGeometry& g, int threads) {
  const bool global = g.batch == 1 && g.out_h == 1 && g.out_w == 1 && g.pad_top == 0 && g.pad_left == 0 &&
                      params.filter_h == g.in_h && params.filter_w == g.in_w;
  if (!global || threads <= 1) return 1;
  const int64_t elements = int64_t{g.in_h} * g.in_w * g.channels;
  // About 8K elements (a microsecond) a band at least, and whole rows each.
  return static_cast<int>(std::clamp<int64_t>(elements / 8192, 1, std::min<int64_t>(threads, g.in_h)));
}

Status PreparePool2D(KernelContext& ctx, const Pool2DParams& params, Pool2DGeometry* g) {
  if (ctx.num_inputs() != 1 || !ctx.has_input(0)) {
    return ctx.Error("expects 1 input, got " + std::to_string(ctx.num_inputs()));
  }
  if (ctx.num_outputs() != 1) return ctx.Error("expects 1 output, got " + std::to_string(ctx.num_outputs()));
  const Tensor& input = ctx.input(0);
  const Tensor& output = ctx.output(0);
  if (input.type == DataType::kUInt8 || input.type == DataType::kInt8 || input.type == DataType::kInt16) {
    return ctx.Unsupported("quantized " + DataTypeName(input.type) + " input is not supported yet");
  }
  if (input.type != DataType::kFloat32) return ctx.Error("input must be float32, got " + DataTypeName(input.type));
  if (output.type != input.type) return ctx.Error("output must be float32, got " + DataTypeName(output.type));
  if (input.rank() != 4) return ctx.Error("input must be 4-D NHWC, got shape " + ShapeToString(input.shape));
  if (!IsClampActivation(params.activation)) {
    return ctx.Unsupported(std::string("fused activation ") + ActivationName(params.activation) +
                           " is not supported");
  }
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
  g->global_bands = GlobalPoolBands(params, *g, ctx.num_threads());
  if (g->global_bands > 1) ctx.RequestScratch(static_cast<size_t>(g->global_bands) * g->channels * sizeof(float));
  return ctx.ResizeOutput(0, {g->batch, g->out_h, g->out_w, g->channels});
}

}  // namespace relite::cpu
