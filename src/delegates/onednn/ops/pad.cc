// PAD (zeros) -> a reorder of the input into the interior of the output,
// and of zeros (a constant memory) into each slab of its border. The output
// is rewritten whole at each Invoke, so a convolution's sum post-op may
// accumulate onto it in place (face detection's channel-padded residuals).
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
  auto out = in.ok() ? ctx.OutputArg(0, frame) : in.status();
  auto inside = out.ok() ? ctx.ViewArg(*out, interior) : out.status();
  if (!inside.ok()) {
    ctx.api().dnnl_primitive_desc_destroy(pd);
    return inside.status();
  }
  RELITE_RETURN_IF_ERROR(ctx.Add(pd, {{DNNL_ARG_FROM, *in}, {DNNL_ARG_TO, *inside}}));
  // The border as slabs: along dim d, before and after the interior, over
  // the interior of the dims before d and the whole of those after it.
  dnnl_dims_t out_dims, in_dims, pad_before;
  DnnlDims(y, rank, out_dims);
  DnnlDims(x, rank, in_dims);
  DnnlDims(before, rank, pad_before);
  for (int d = 0; d < rank; ++d) {
    for (int side = 0; side < 2; ++side) {
      const int64_t extent = side == 0 ? pad_before[d] : out_dims[d] - in_dims[d] - pad_before[d];
      if (extent == 0) continue;
      dnnl_dims_t slab_dims, slab_offsets;
      for (int j = 0; j < rank; ++j) {
        slab_dims[j] = j < d ? in_dims[j] : out_dims[j];
        slab_offsets[j] = j < d ? pad_before[j] : 0;
      }
      slab_dims[d] = extent;
      slab_offsets[d] = side == 0 ? 0 : pad_before[d] + in_dims[d];
      dnnl_memory_desc_t slab;
      if (ctx.api().dnnl_memory_desc_init_submemory(&slab, &frame, slab_dims, slab_offsets) != dnnl_success) {
        return ctx.Refuse("oneDNN cannot describe the padded border");
      }
      RELITE_ASSIGN_OR_RETURN(dnnl_memory_desc_t dense, ctx.TagDesc(rank, slab_dims, src.data_type, PlainTag(rank)));
      dnnl_primitive_desc_t fill = nullptr;
      if (ctx.api().dnnl_reorder_primitive_desc_create(&fill, &dense, ctx.engine(), &slab, ctx.engine(), nullptr) !=
          dnnl_success) {
        return ctx.Refuse("oneDNN has no reorder into the padded border");
      }
      auto zeros = ctx.ZeroArg(dense);
      auto border = zeros.ok() ? ctx.ViewArg(*out, slab) : zeros.status();
      if (!border.ok()) {
        ctx.api().dnnl_primitive_desc_destroy(fill);
        return border.status();
      }
      RELITE_RETURN_IF_ERROR(ctx.Add(fill, {{DNNL_ARG_FROM, *zeros}, {DNNL_ARG_TO, *border}}));
    }
  }
  return Status::Ok();
}

}  // namespace relite::onednn
