#include "src/delegates/onednn/ops/internal/layout.h"

#include <utility>

namespace relite::onednn {

StatusOr<dnnl_memory_desc_t> NaturalDesc(OpContext& ctx, const Shape& shape, int rank, bool swap_last_two) {
  if (rank > 5 || static_cast<int>(shape.size()) > rank) return ctx.Refuse("tensors of rank above 5 are not supported");
  dnnl_dims_t dims, strides;
  const int r = static_cast<int>(shape.size());
  for (int i = 0; i < rank; ++i) dims[i] = i < rank - r ? 1 : shape[static_cast<size_t>(i - (rank - r))];
  int64_t stride = 1;
  for (int i = rank - 1; i >= 0; --i) {
    if (dims[i] <= 0) return ctx.Refuse("empty tensors are not supported");
    strides[i] = stride;
    stride *= dims[i];
  }
  if (swap_last_two && rank >= 2) {
    std::swap(dims[rank - 1], dims[rank - 2]);
    std::swap(strides[rank - 1], strides[rank - 2]);
  }
  return ctx.StridesDesc(rank, dims, ctx.compute_type(), strides);
}

StatusOr<int> PlainInputAs(OpContext& ctx, int i, const dnnl_memory_desc_t& view) {
  RELITE_ASSIGN_OR_RETURN(dnnl_memory_desc_t plain, ctx.PlainDesc(ctx.input(i).shape, ctx.compute_type()));
  RELITE_ASSIGN_OR_RETURN(int m, ctx.InputArg(i, plain));
  if (ctx.checking()) return -1;
  if (ctx.api().dnnl_memory_desc_equal(&plain, &view)) return m;
  return ctx.ViewArg(m, view);
}

StatusOr<int> NaturalOutput(OpContext& ctx, const dnnl_memory_desc_t& natural) {
  RELITE_ASSIGN_OR_RETURN(dnnl_memory_desc_t plain, ctx.PlainDesc(ctx.output(0).shape, ctx.compute_type()));
  RELITE_ASSIGN_OR_RETURN(int t, ctx.TempArg(natural));
  RELITE_RETURN_IF_ERROR(ctx.OutputView(0, t, plain));
  return t;
}

}  // namespace relite::onednn
