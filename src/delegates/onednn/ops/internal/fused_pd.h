// Creating the primitive descriptor of an op whose destination carries the
// node's own fused activation and what the partition folded into it (a
// residual ADD as a sum post-op, activation nodes as eltwise post-ops).
#pragma once

#include <cstring>
#include <string>

#include "src/delegates/onednn/op_context.h"

namespace relite::onednn {

// `init(dst, &op_desc)` fills the op descriptor for destination `dst`.
template <typename OpDesc, typename Init>
StatusOr<dnnl_primitive_desc_t> CreateFusedPd(OpContext& ctx, Activation own, const dnnl_memory_desc_t& dst, Init init,
                                              const char* what) {
  OpDesc desc;
  if (init(dst, &desc) != dnnl_success) return ctx.Refuse(std::string("oneDNN rejects the ") + what + " descriptor");
  RELITE_ASSIGN_OR_RETURN(OpContext::Attr attr, ctx.MakeAttr(own));
  auto pd = ctx.CreatePd(&desc, attr.attr, what);
  ctx.FreeAttr(attr);
  if (!pd.ok() || ctx.fusion().post_ops.empty()) return pd;
  // Folded post-ops must not cost the optimized kernel: where only the
  // reference one takes them, the partition builds the node without them.
  const char* impl = nullptr;
  ctx.api().dnnl_primitive_desc_query(*pd, dnnl_query_impl_info_str, 0, &impl);
  if (impl != nullptr && std::strncmp(impl, "ref", 3) == 0) {
    ctx.api().dnnl_primitive_desc_destroy(*pd);
    return ctx.Refuse(std::string("only oneDNN's reference ") + what + " takes the folded post-ops");
  }
  return pd;
}

}  // namespace relite::onednn
