#include "src/delegates/onednn/ops/internal/elementwise.h"

#include <algorithm>
#include <cstring>

#include <fmt/format.h>

#include "src/core/ops/params.h"

namespace relite::onednn {

Status BuildEltwise(OpContext& ctx, dnnl_alg_kind_t alg, float alpha, float beta) {
  if (ctx.num_inputs() != 1 || ctx.node().outputs.size() != 1) return ctx.Refuse("expected 1 input and 1 output");
  RELITE_RETURN_IF_ERROR(ctx.RequireFloat({0}));
  RELITE_RETURN_IF_ERROR(ctx.RequireOutputShape(0, ctx.input(0).shape));
  RELITE_ASSIGN_OR_RETURN(dnnl_memory_desc_t src, ctx.OperandDesc(0));
  dnnl_eltwise_desc_t desc;
  if (ctx.api().dnnl_eltwise_forward_desc_init(&desc, dnnl_forward_inference, alg, &src, alpha, beta) != dnnl_success) {
    return ctx.Refuse("oneDNN rejects the eltwise descriptor");
  }
  RELITE_ASSIGN_OR_RETURN(dnnl_primitive_desc_t pd, ctx.CreatePd(&desc, nullptr, "eltwise"));
  // A blocked layout padded past the channels (a 1-channel result held as
  // 16) sends eltwise to oneDNN's reference kernel: take the input plain.
  const char* impl = nullptr;
  ctx.api().dnnl_primitive_desc_query(pd, dnnl_query_impl_info_str, 0, &impl);
  if (impl != nullptr && std::strncmp(impl, "ref", 3) == 0) {
    RELITE_ASSIGN_OR_RETURN(dnnl_memory_desc_t plain, ctx.PlainDesc(ctx.input(0).shape, ctx.compute_type()));
    dnnl_eltwise_desc_t plain_desc;
    if (!ctx.api().dnnl_memory_desc_equal(&plain, &src) &&
        ctx.api().dnnl_eltwise_forward_desc_init(&plain_desc, dnnl_forward_inference, alg, &plain, alpha, beta) ==
            dnnl_success) {
      auto plain_pd = ctx.CreatePd(&plain_desc, nullptr, "eltwise");
      if (plain_pd.ok()) {
        ctx.api().dnnl_primitive_desc_destroy(pd);
        pd = *plain_pd;
        src = plain;
      }
    }
  }
  return ctx.AddUnary(pd, src);
}

Status BuildBinary(OpContext& ctx, dnnl_alg_kind_t alg, bool commutative, const std::vector<PostOp>& post) {
  if (ctx.num_inputs() != 2 || ctx.node().outputs.size() != 1) return ctx.Refuse("expected 2 inputs and 1 output");
  RELITE_RETURN_IF_ERROR(ctx.RequireFloat({0, 1}));
  RELITE_ASSIGN_OR_RETURN(Activation act, ParseFusedActivation(ctx.node()));
  const Shape& a = ctx.input(0).shape;
  const Shape& b = ctx.input(1).shape;
  const size_t rank = std::max(a.size(), b.size());
  Shape out(rank);
  for (size_t i = 0; i < rank; ++i) {
    const int32_t da = i + a.size() >= rank ? a[i + a.size() - rank] : 1;
    const int32_t db = i + b.size() >= rank ? b[i + b.size() - rank] : 1;
    if (da != db && da != 1 && db != 1) return ctx.Refuse(fmt::format("shapes {} and {} do not broadcast", ShapeToString(a), ShapeToString(b)));
    out[i] = std::max(da, db);
  }
  RELITE_RETURN_IF_ERROR(ctx.RequireOutputShape(0, out));
  int first = 0, second = 1;
  const bool a_full = a == out && !ctx.is_constant(0);
  const bool b_full = b == out && !ctx.is_constant(1);
  if (!a_full && b_full && commutative) std::swap(first, second);
  if (ctx.input(first).shape != out) {
    return ctx.Refuse("the first operand is broadcast; oneDNN broadcasts only the second");
  }
  const int r = DnnlRank(out);
  RELITE_ASSIGN_OR_RETURN(dnnl_memory_desc_t src0, ctx.OperandDesc(first));
  dnnl_memory_desc_t src1;
  if (ctx.input(second).shape == out && !ctx.is_constant(second)) {
    src1 = src0;  // the same layout: no reorder when the producers agree
  } else {
    RELITE_ASSIGN_OR_RETURN(src1, ctx.PlainDesc(ctx.input(second).shape, ctx.compute_type(), r));
  }
  dnnl_binary_desc_t desc;
  if (ctx.api().dnnl_binary_desc_init(&desc, alg, &src0, &src1, &src0) != dnnl_success) {
    return ctx.Refuse("oneDNN rejects the binary descriptor");
  }
  // Activation nodes after it come as eltwise post-ops (the partition's plan).
  RELITE_ASSIGN_OR_RETURN(OpContext::Attr attr, ctx.MakeAttr(act, true, post));
  auto pd = ctx.CreatePd(&desc, attr.attr, "binary primitive");
  ctx.FreeAttr(attr);
  if (!pd.ok()) return pd.status();
  auto bind = [&]() -> StatusOr<std::vector<std::pair<int, int>>> {
    RELITE_ASSIGN_OR_RETURN(int x0, ctx.InputArg(first, src0));
    RELITE_ASSIGN_OR_RETURN(int x1, ctx.InputArg(second, src1));
    RELITE_ASSIGN_OR_RETURN(int y, ctx.OutputArg(0, src0));
    return std::vector<std::pair<int, int>>{{DNNL_ARG_SRC_0, x0}, {DNNL_ARG_SRC_1, x1}, {DNNL_ARG_DST, y}};
  };
  auto args = bind();
  if (!args.ok()) {
    ctx.api().dnnl_primitive_desc_destroy(*pd);
    return args.status();
  }
  return ctx.Add(*pd, std::move(*args));
}

}  // namespace relite::onednn
