// SOFTMAX over the last axis -> softmax; beta != 1 scales the input first
// (an eltwise linear step), as exp(beta * x) normalised is softmax(beta * x).
#include <fmt/format.h>

#include "src/core/ops/options.h"
#include "src/delegates/onednn/ops/ops.h"

namespace relite::onednn {

Status BuildSoftmax(OpContext& ctx) {
  RELITE_RETURN_IF_ERROR(ctx.RequireFloat({0}));
  const Shape& x = ctx.input(0).shape;
  if (x != ctx.output(0).shape || x.empty()) return ctx.Refuse("the output must have the input's shape");
  float beta = 1.0f;
  if (const auto* options = GetOptions<tflite::SoftmaxOptions>(ctx.node())) beta = options->beta();
  RELITE_ASSIGN_OR_RETURN(dnnl_memory_desc_t src, ctx.InputDesc(0));
  const int axis = DnnlAxis(static_cast<int>(x.size()) - 1, src.ndims);
  RELITE_ASSIGN_OR_RETURN(int in, ctx.InputArg(0, src));
  if (beta != 1.0f) {
    dnnl_eltwise_desc_t scale;
    if (ctx.api().dnnl_eltwise_forward_desc_init(&scale, dnnl_forward_inference, dnnl_eltwise_linear, &src, beta, 0.0f) !=
        dnnl_success) {
      return ctx.Refuse("oneDNN rejects the scaling by beta");
    }
    RELITE_ASSIGN_OR_RETURN(dnnl_primitive_desc_t pd, ctx.CreatePd(&scale, nullptr, "eltwise primitive"));
    auto scaled = ctx.TempArg(src);
    if (!scaled.ok()) {
      ctx.api().dnnl_primitive_desc_destroy(pd);
      return scaled.status();
    }
    RELITE_RETURN_IF_ERROR(ctx.Add(pd, {{DNNL_ARG_SRC, in}, {DNNL_ARG_DST, *scaled}}));
    in = *scaled;
  }
  dnnl_softmax_desc_t desc;
  if (ctx.api().dnnl_softmax_forward_desc_init(&desc, dnnl_forward_inference, &src, axis) != dnnl_success) {
    return ctx.Refuse("oneDNN rejects the softmax");
  }
  RELITE_ASSIGN_OR_RETURN(dnnl_primitive_desc_t pd, ctx.CreatePd(&desc, nullptr, "softmax"));
  auto out = ctx.OutputArg(0, ctx.QueryMd(pd, dnnl_query_dst_md));
  if (!out.ok()) {
    ctx.api().dnnl_primitive_desc_destroy(pd);
    return out.status();
  }
  return ctx.Add(pd, {{DNNL_ARG_SRC, in}, {DNNL_ARG_DST, *out}});
}

}  // namespace relite::onednn
