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
  return ctx.AddUnary(pd, src);
}

}  // namespace relite::onednn
