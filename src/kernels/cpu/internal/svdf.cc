#include "src/kernels/cpu/internal/svdf.h"

#include <string>

#include "src/core/ops/options.h"

namespace relite::cpu {

StatusOr<SvdfOptions> ParseSvdfOptions(const Node& node) {
  SvdfOptions o;
  if (const auto* t = GetOptions<tflite::SVDFOptions>(node)) {
    o.rank = t->rank();
    o.activation = t->fused_activation_function();
    o.asymmetric_quantize_inputs = t->asymmetric_quantize_inputs();
  }
  if (o.rank < 1) return InvalidArgumentError(node.Describe() + ": rank must be >= 1, got " + std::to_string(o.rank));
  if (node.inputs.size() != 5) {
    return InvalidArgumentError(node.Describe() + ": expected 5 inputs (input, weights_feature, weights_time, bias, state), got " +
                                std::to_string(node.inputs.size()));
  }
  if (node.outputs.size() != 1) {
    return InvalidArgumentError(node.Describe() + ": expected 1 output, got " + std::to_string(node.outputs.size()));
  }
  return o;
}

Status PrepareSvdfShapes(KernelContext& ctx, int rank, SvdfDims* d) {
  if (ctx.num_inputs() != 5 || ctx.num_outputs() != 1) {
    return ctx.Error("expected 5 inputs and 1 output, got " + std::to_string(ctx.num_inputs()) + " and " +
                     std::to_string(ctx.num_outputs()));
  }
  for (int i : {int{kSvdfInput}, int{kSvdfWeightsFeature}, int{kSvdfWeightsTime}, int{kSvdfState}}) {
    if (!ctx.has_input(i)) return ctx.Error("input " + std::to_string(i) + " is required");
  }
  const Tensor& input = ctx.input(kSvdfInput);
  const Tensor& feature = ctx.input(kSvdfWeightsFeature);
  const Tensor& time = ctx.input(kSvdfWeightsTime);
  const Tensor& state = ctx.input(kSvdfState);
  if (input.rank() != 2) return ctx.Error("input must be 2-D [batch, input_size], got " + ShapeToString(input.shape));
  if (feature.rank() != 2 || feature.dim(1) != input.dim(1)) {
    return ctx.Error("weights_feature " + ShapeToString(feature.shape) + " must be [filters, " +
                     std::to_string(input.dim(1)) + "]");
  }
  d->batch = input.dim(0);
  d->input_size = input.dim(1);
  d->filters = feature.dim(0);
  if (d->filters % rank != 0) {
    return ctx.Error("filters (" + std::to_string(d->filters) + ") must be a multiple of rank " + std::to_string(rank));
  }
  d->units = d->filters / rank;
  if (time.rank() != 2 || time.dim(0) != d->filters || time.dim(1) < 1) {
    return ctx.Error("weights_time " + ShapeToString(time.shape) + " must be [" + std::to_string(d->filters) +
                     ", memory >= 1]");
  }
  d->memory = time.dim(1);
  if (ctx.has_input(kSvdfBias) && ctx.input(kSvdfBias).shape != Shape{d->units}) {
    return ctx.Error("bias " + ShapeToString(ctx.input(kSvdfBias).shape) + " must be [" + std::to_string(d->units) + "]");
  }
  if (!state.is_variable) return ctx.Error("state (input 4) must be a variable tensor");
  if (state.rank() != 2 || state.dim(0) != d->batch ||
      static_cast<int64_t>(state.dim(1)) != static_cast<int64_t>(d->memory) * d->filters) {
    return ctx.Error("state " + ShapeToString(state.shape) + " must be [" + std::to_string(d->batch) + ", " +
                     std::to_string(static_cast<int64_t>(d->memory) * d->filters) + "]");
  }
  if (d->batch < 0 || d->input_size < 0 || d->filters < 0) return ctx.Error("negative dimension");
  return ctx.ResizeOutput(0, {d->batch, d->units});
}

}  // namespace relite::cpu
