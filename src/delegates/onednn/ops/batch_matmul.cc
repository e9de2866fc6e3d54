// BATCH_MATMUL: a oneDNN matmul over TFLite-ordered operands ([..., M, K] x
// [..., K, N]); adj_x / adj_y transpose by strides, batch dims broadcast.
#include <algorithm>

#include <fmt/format.h>

#include "src/core/ops/options.h"
#include "src/delegates/onednn/ops/ops.h"
#include "src/delegates/onednn/ops/internal/layout.h"

namespace relite::onednn {

Status BuildBatchMatmul(OpContext& ctx) {
  RELITE_RETURN_IF_ERROR(ctx.RequireFloat({0, 1}));
  bool adj_x = false, adj_y = false;
  if (const auto* o = GetOptions<tflite::BatchMatMulOptions>(ctx.node()); o != nullptr) {
    adj_x = o->adj_x();
    adj_y = o->adj_y();
  }
  const Shape& a = ctx.input(0).shape;
  const Shape& b = ctx.input(1).shape;
  if (a.size() < 2 || b.size() < 2) return ctx.Refuse("operands must have rank 2 or more");
  const int rank = static_cast<int>(std::max(a.size(), b.size()));
  if (rank > 5) return ctx.Refuse("operands of rank above 5 are not supported");
  const int64_t m = adj_x ? a[a.size() - 1] : a[a.size() - 2];
  const int64_t k = adj_x ? a[a.size() - 2] : a[a.size() - 1];
  const int64_t kb = adj_y ? b[b.size() - 1] : b[b.size() - 2];
  const int64_t n = adj_y ? b[b.size() - 2] : b[b.size() - 1];
  if (k != kb) return ctx.Refuse(fmt::format("inner dimensions differ ({} and {})", k, kb));
  Shape out(static_cast<size_t>(rank));
  for (int i = 0; i < rank - 2; ++i) {
    const int ia = i - (rank - static_cast<int>(a.size())), ib = i - (rank - static_cast<int>(b.size()));
    const int32_t da = ia >= 0 ? a[static_cast<size_t>(ia)] : 1, db = ib >= 0 ? b[static_cast<size_t>(ib)] : 1;
    if (da != db && da != 1 && db != 1) return ctx.Refuse("batch dimensions do not broadcast");
    out[static_cast<size_t>(i)] = std::max(da, db);
  }
  out[static_cast<size_t>(rank - 2)] = static_cast<int32_t>(m);
  out[static_cast<size_t>(rank - 1)] = static_cast<int32_t>(n);
  RELITE_RETURN_IF_ERROR(ctx.RequireOutputShape(0, out));
  RELITE_ASSIGN_OR_RETURN(dnnl_memory_desc_t src, NaturalDesc(ctx, a, rank, adj_x));
  RELITE_ASSIGN_OR_RETURN(dnnl_memory_desc_t weights, NaturalDesc(ctx, b, rank, adj_y));
  RELITE_ASSIGN_OR_RETURN(dnnl_memory_desc_t dst, NaturalDesc(ctx, out, rank));
  dnnl_matmul_desc_t desc;
  if (ctx.api().dnnl_matmul_desc_init(&desc, &src, &weights, nullptr, &dst) != dnnl_success) {
    return ctx.Refuse("oneDNN rejects the matmul descriptor");
  }
  RELITE_ASSIGN_OR_RETURN(dnnl_primitive_desc_t pd, ctx.CreatePd(&desc, nullptr, "matmul"));
  auto bind = [&]() -> StatusOr<std::vector<std::pair<int, int>>> {
    RELITE_ASSIGN_OR_RETURN(int am, PlainInputAs(ctx, 0, src));
    RELITE_ASSIGN_OR_RETURN(int bm, PlainInputAs(ctx, 1, weights));
    RELITE_ASSIGN_OR_RETURN(int ym, NaturalOutput(ctx, dst));
    return std::vector<std::pair<int, int>>{{DNNL_ARG_SRC, am}, {DNNL_ARG_WEIGHTS, bm}, {DNNL_ARG_DST, ym}};
  };
  auto args = bind();
  if (!args.ok()) {
    ctx.api().dnnl_primitive_desc_destroy(pd);
    return args.status();
  }
  return ctx.Add(pd, std::move(*args));
}

}  // namespace relite::onednn
