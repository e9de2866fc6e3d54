// LOG_SOFTMAX over the last axis -> logsoftmax.
#include "src/delegates/onednn/ops/ops.h"

namespace relite::onednn {

Status BuildLogSoftmax(OpContext& ctx) {
  RELITE_RETURN_IF_ERROR(ctx.RequireFloat({0}));
  const Shape& x = ctx.input(0).shape;
  if (x.empty()) return ctx.Refuse("a scalar input is not supported");
  RELITE_RETURN_IF_ERROR(ctx.RequireOutputShape(0, x));
  RELITE_ASSIGN_OR_RETURN(dnnl_memory_desc_t src, ctx.InputDesc(0));
  dnnl_logsoftmax_desc_t desc;
  if (ctx.api().dnnl_logsoftmax_forward_desc_init(&desc, dnnl_forward_inference, &src,
                                                  DnnlAxis(static_cast<int>(x.size()) - 1, src.ndims)) != dnnl_success) {
    return ctx.Refuse("oneDNN rejects the logsoftmax");
  }
  RELITE_ASSIGN_OR_RETURN(dnnl_primitive_desc_t pd, ctx.CreatePd(&desc, nullptr, "logsoftmax"));
  auto in = ctx.InputArg(0, src);
  auto out = in.ok() ? ctx.OutputArg(0, ctx.QueryMd(pd, dnnl_query_dst_md)) : in.status();
  if (!out.ok()) {
    ctx.api().dnnl_primitive_desc_destroy(pd);
    return out.status();
  }
  return ctx.Add(pd, {{DNNL_ARG_SRC, *in}, {DNNL_ARG_DST, *out}});
}

}  // namespace relite::onednn
