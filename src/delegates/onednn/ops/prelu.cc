// PRELU -> prelu with the slopes broadcast as TFLite broadcasts them.
#include <fmt/format.h>

#include "src/delegates/onednn/ops/ops.h"

namespace relite::onednn {

Status BuildPrelu(OpContext& ctx) {
  RELITE_RETURN_IF_ERROR(ctx.RequireFloat({0, 1}));
  const Shape& x = ctx.input(0).shape;
  const Shape& alpha = ctx.input(1).shape;
  if (x != ctx.output(0).shape) return ctx.Refuse("the output must have the input's shape");
  if (alpha.size() > x.size()) return ctx.Refuse("the slopes have a higher rank than the input");
  for (size_t i = 0; i < alpha.size(); ++i) {
    const int64_t a = alpha[alpha.size() - 1 - i], d = x[x.size() - 1 - i];
    if (a != 1 && a != d) return ctx.Refuse(fmt::format("slopes {} do not broadcast to {}", ShapeToString(alpha), ShapeToString(x)));
  }
  RELITE_ASSIGN_OR_RETURN(dnnl_memory_desc_t src, ctx.InputDesc(0));
  RELITE_ASSIGN_OR_RETURN(dnnl_memory_desc_t w, ctx.PlainDesc(alpha, src.data_type, src.ndims));
  dnnl_prelu_desc_t desc;
  if (ctx.api().dnnl_prelu_forward_desc_init(&desc, dnnl_forward_inference, &src, &w) != dnnl_success) {
    return ctx.Refuse("oneDNN rejects the prelu");
  }
  RELITE_ASSIGN_OR_RETURN(dnnl_primitive_desc_t pd, ctx.CreatePd(&desc, nullptr, "prelu"));
  auto in = ctx.InputArg(0, src);
  auto slopes = in.ok() ? ctx.InputArg(1, ctx.QueryMd(pd, dnnl_query_weights_md)) : in.status();
  auto out = slopes.ok() ? ctx.OutputArg(0, ctx.QueryMd(pd, dnnl_query_dst_md)) : slopes.status();
  if (!out.ok()) {
    ctx.api().dnnl_primitive_desc_destroy(pd);
    return out.status();
  }
  return ctx.Add(pd, {{DNNL_ARG_SRC, *in}, {DNNL_ARG_WEIGHTS, *slopes}, {DNNL_ARG_DST, *out}});
}

}  // namespace relite::onednn
