// TRANSPOSE by a constant permutation -> a reorder from the input's bytes,
// seen with permuted strides, into the output's row-major order.
#include <fmt/format.h>

#include "src/delegates/onednn/ops/internal/layout.h"
#include "src/delegates/onednn/ops/ops.h"

namespace relite::onednn {

Status BuildTranspose(OpContext& ctx) {
  RELITE_RETURN_IF_ERROR(ctx.RequireFloat({0}));
  RELITE_ASSIGN_OR_RETURN(std::vector<int64_t> perm, ctx.ConstantInts(1, "the permutation"));
  const Shape& x = ctx.input(0).shape;
  const int rank = static_cast<int>(x.size());
  if (rank < 1 || rank > 5 || static_cast<int>(perm.size()) != rank) return ctx.Refuse("the permutation must match ranks 1 to 5");
  std::vector<bool> seen(static_cast<size_t>(rank), false);
  Shape out(static_cast<size_t>(rank));
  dnnl_dims_t in_strides, dims, strides;
  int64_t stride = 1;
  for (int i = rank - 1; i >= 0; --i) {
    in_strides[i] = stride;
    stride *= x[static_cast<size_t>(i)];
  }
  for (int i = 0; i < rank; ++i) {
    int64_t p = perm[static_cast<size_t>(i)];
    if (p < 0) p += rank;
    if (p < 0 || p >= rank || seen[static_cast<size_t>(p)]) return ctx.Refuse("the permutation is not one");
    seen[static_cast<size_t>(p)] = true;
    out[static_cast<size_t>(i)] = x[static_cast<size_t>(p)];
    dims[i] = x[static_cast<size_t>(p)];
    strides[i] = in_strides[p];
  }
  RELITE_RETURN_IF_ERROR(ctx.RequireOutputShape(0, out));
  RELITE_ASSIGN_OR_RETURN(dnnl_memory_desc_t src, ctx.StridesDesc(rank, dims, ctx.compute_type(), strides));
  RELITE_ASSIGN_OR_RETURN(dnnl_memory_desc_t dst, NaturalDesc(ctx, out, rank));
  dnnl_primitive_desc_t pd = nullptr;
  if (ctx.api().dnnl_reorder_primitive_desc_create(&pd, &src, ctx.engine(), &dst, ctx.engine(), nullptr) != dnnl_success) {
    return ctx.Refuse("oneDNN has no reorder for this permutation");
  }
  auto in = PlainInputAs(ctx, 0, src);
  auto y = in.ok() ? NaturalOutput(ctx, dst) : in.status();
  if (!y.ok()) {
    ctx.api().dnnl_primitive_desc_destroy(pd);
    return y.status();
  }
  return ctx.Add(pd, {{DNNL_ARG_FROM, *in}, {DNNL_ARG_TO, *y}});
}

}  // namespace relite::onednn
