// MEAN / SUM -> reduction over the constant axes; without keep_dims the
// result's plain bytes are viewed under the output's smaller rank.
#include <set>

#include <fmt/format.h>

#include "src/core/ops/options.h"
#include "src/delegates/onednn/ops/ops.h"

namespace relite::onednn {

namespace {

Status BuildGlobalPool(OpContext& ctx, dnnl_alg_kind_t alg, const dnnl_memory_desc_t& src, bool keep_dims) {
  const Shape& x = ctx.input(0).shape;
  const dnnl_dims_t dst_dims = {x[0], x[3], 1, 1};
  const dnnl_dims_t strides = {1, 1}, kernel = {x[1], x[2]}, zeros = {0, 0};
  // Without keep_dims the result's plain bytes are the output's.
  RELITE_ASSIGN_OR_RETURN(dnnl_memory_desc_t dst, keep_dims ? ctx.AnyDesc(4, dst_dims, src.data_type)
                                                             : ctx.TagDesc(4, dst_dims, src.data_type, dnnl_acdb));
  dnnl_pooling_v2_desc_t desc;
  if (ctx.api().dnnl_pooling_v2_forward_desc_init(&desc, dnnl_forward_inference, alg, &src, &dst, strides, kernel, zeros,
                                                  zeros, zeros) != dnnl_success) {
    return ctx.Refuse("oneDNN rejects the global pooling");
  }
  RELITE_ASSIGN_OR_RETURN(dnnl_primitive_desc_t pd, ctx.CreatePd(&desc, nullptr, "pooling"));
  // Without keep_dims the result's plain bytes are the output's.
  return keep_dims ? ctx.AddUnary(pd, src) : ctx.AddUnaryToView(pd, src, dst);
}

}  // namespace

Status BuildReduction(OpContext& ctx, dnnl_alg_kind_t alg) {
  RELITE_RETURN_IF_ERROR(ctx.RequireFloat({0}));
  RELITE_RETURN_IF_ERROR(ctx.RequireConstant(1, "the axes"));
  const Tensor& axes = ctx.input(1);
  if (axes.type != DataType::kInt32) return ctx.Refuse("the axes must be int32");
  const Shape& x = ctx.input(0).shape;
  const Shape& y = ctx.output(0).shape;
  const int rank = static_cast<int>(x.size());
  if (rank < 1 || rank > 5) return ctx.Refuse("the input must have rank 1 to 5");
  std::set<int> reduced;
  const int32_t* a = static_cast<const int32_t*>(axes.data);
  for (int64_t i = 0; i < NumElements(axes.shape); ++i) {
    const int axis = a[i] < 0 ? a[i] + rank : a[i];
    if (axis < 0 || axis >= rank) return ctx.Refuse(fmt::format("axis {} is out of range for rank {}", a[i], rank));
    reduced.insert(axis);
  }
  bool keep_dims = false;
  if (const auto* options = GetOptions<tflite::ReducerOptions>(ctx.node())) keep_dims = options->keep_dims();
  Shape kept = x, dropped;
  for (int i = 0; i < rank; ++i) {
    if (reduced.count(i)) {
      kept[static_cast<size_t>(i)] = 1;
    } else {
      dropped.push_back(x[static_cast<size_t>(i)]);
    }
  }
  if (y != (keep_dims ? kept : dropped)) {
    return ctx.Refuse(fmt::format("the output is declared {}, the axes give {}", ShapeToString(y),
                                  ShapeToString(keep_dims ? kept : dropped)));
  }
  if (y.empty()) return ctx.Refuse("a reduction to a scalar is not supported");
  RELITE_ASSIGN_OR_RETURN(dnnl_memory_desc_t src, ctx.InputDesc(0));
  if (rank == 4 && reduced == std::set<int>{1, 2} && (alg == dnnl_reduction_mean || alg == dnnl_reduction_max)) {
    // Over H and W: a pooling with one window as large as the image, which
    // oneDNN JITs (its 2.6 reduction over non-innermost dims is the
    // reference kernel: 0.3 ms on hand_landmark_lite's 7x7x1152 mean).
    return BuildGlobalPool(ctx, alg == dnnl_reduction_mean ? dnnl_pooling_avg_exclude_padding : dnnl_pooling_max, src,
                           keep_dims);
  }
  RELITE_ASSIGN_OR_RETURN(dnnl_memory_desc_t dst, ctx.PlainDesc(kept, src.data_type));
  dnnl_reduction_desc_t desc;
  if (ctx.api().dnnl_reduction_desc_init(&desc, alg, &src, &dst, 0.0f, 0.0f) != dnnl_success) {
    return ctx.Refuse("oneDNN rejects the reduction");
  }
  RELITE_ASSIGN_OR_RETURN(dnnl_primitive_desc_t pd, ctx.CreatePd(&desc, nullptr, "reduction"));
  return keep_dims ? ctx.AddUnary(pd, src) : ctx.AddUnaryToView(pd, src, dst);
}

}  // namespace relite::onednn
