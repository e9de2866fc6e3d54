// PAD (zeros) -> a reorder of the input into the interior of a frame that
// was zeroed once: only the interior is written at each Invoke.
#include <fmt/format.h>

#include "src/delegates/onednn/ops/ops.h"

namespace relite::onednn {

Status BuildPad(OpContext& ctx) {
  RELITE_RETURN_IF_ERROR(ctx.RequireFloat({0}));
  RELITE_RETURN_IF_ERROR(ctx.RequireConstant(1, "the paddings"));
  const Tensor& pads = ctx.input(1);
  const Shape& x = ctx.input(0).shape;
  const Shape& y = ctx.output(0).shape;
  const int rank = static_cast<int>(x.size());
  if (rank < 1 || rank > 5 || pads.shape != Shape{rank, 2}) return ctx.Refuse("the paddings must be [rank, 2] for rank 1 to 5");
  if (pads.type != DataType::kInt32 && pads.type != DataType::kInt64) return ctx.Refuse("the paddings must be int32 or int64");
  Shape before(static_cast<size_t>(rank)), expect(static_cast<size_t>(rank));
  for (int d = 0; d < rank; ++d) {
    const auto at = [&](int k) -> int64_t {
      return pads.type == DataType::kInt32 ? static_cast<const int32_t*>(pads.data)[2 * d + k]
                                           : static_cast<const int64_t*>(pads.data)[2 * d + k];
    };
    if (at(0) < 0 || at(1) < 0) return ctx.Refuse("negative paddings are not supported");
    before[static_cast<size_t>(d)] = at(0);
    expect[static_cast<size_t>(d)] = x[static_cast<size_t>(d)] + at(0) + at(1);
  }
  if (y != expect) return ctx.Refuse(fmt::format("the output is declared {}, the paddings give {}", ShapeToString(y), ShapeToString(expect)));
  RELITE_ASSIGN_OR_RETURN(dnnl_memory_desc_t src, ctx.InputDesc(0));
  RELITE_ASSIGN_OR_RETURN(dnnl_memory_desc_t frame, ctx.PlainDesc(y, src.data_type));
  dnnl_dims_t dims, offsets;
  DnnlDims(x, rank, dims);
  DnnlDims(before, rank, offsets);
  dnnl_memory_desc_t interior;
  if (ctx.api().dnnl_memory_desc_init_submemory(&interior, &frame, dims, offsets) != dnnl_success) {
    return ctx.Refuse("oneDNN cannot describe the padded interior");
  }
  dnnl_primitive_desc_t pd = nullptr;
  if (ctx.api().dnnl_reorder_primitive_desc_create(&pd, &src, ctx.engine(), &interior, ctx.engine(), nullptr) != dnnl_success) {
    return ctx.Refuse("oneDNN has no reorder into the padded interior");
  }
  auto in = ctx.InputArg(0, src);
  auto zeros = in.ok() ? ctx.ZeroArg(frame) : in.status();
  auto inside = zeros.ok() ? ctx.ViewArg(*zeros, interior) : zeros.status();
  Status s = inside.ok() ? ctx.OutputView(0, *zeros, frame) : inside.status();
  if (!s.ok()) {
    ctx.api().dnnl_primitive_desc_destroy(pd);
    return s;
  }
  return ctx.Add(pd, {{DNNL_ARG_FROM, *in}, {DNNL_ARG_TO, *inside}});
}

}  // namespace relite::onednn
