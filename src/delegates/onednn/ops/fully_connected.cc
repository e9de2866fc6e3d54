// FULLY_CONNECTED: an inner product over the input's rows [N, I] (leading
// dims flattened), weights [O, I] constant.
#include <fmt/format.h>

#include "src/core/ops/options.h"
#include "src/core/ops/params.h"
#include "src/delegates/onednn/ops/ops.h"
#include "src/delegates/onednn/ops/internal/fused_pd.h"
#include "src/delegates/onednn/ops/internal/layout.h"

namespace relite::onednn {

Status BuildFullyConnected(OpContext& ctx) {
  RELITE_RETURN_IF_ERROR(ctx.RequireFloat({0, 1, 2}));
  RELITE_ASSIGN_OR_RETURN(FullyConnectedParams p, ParseFullyConnectedParams(ctx.node()));
  if (const auto* o = GetOptions<tflite::FullyConnectedOptions>(ctx.node());
      o != nullptr && o->weights_format() != tflite::FullyConnectedOptionsWeightsFormat::DEFAULT) {
    return ctx.Refuse("shuffled weights are not supported");
  }
  RELITE_RETURN_IF_ERROR(ctx.RequireConstant(1, "the weights"));
  if (ctx.has_input(2)) RELITE_RETURN_IF_ERROR(ctx.RequireConstant(2, "the bias"));
  const Shape& x = ctx.input(0).shape;
  const Shape& w = ctx.input(1).shape;
  if (w.size() != 2 || x.empty()) return ctx.Refuse("weights must be 2-D [O, I]");
  const int64_t o = w[0], i = w[1];
  const int64_t total = NumElements(x);
  if (i <= 0 || o <= 0 || total % i != 0) return ctx.Refuse(fmt::format("input {} is not a whole number of rows of {}", ShapeToString(x), i));
  if (ctx.has_input(2) && NumElements(ctx.input(2).shape) != o) return ctx.Refuse("the bias does not match the weights");
  const int64_t n = total / i;
  Shape out;
  if (p.keep_num_dims) {
    if (x.back() != i) return ctx.Refuse("keep_num_dims needs the input's last dimension to be the weights' inputs");
    out = x;
    out.back() = static_cast<int32_t>(o);
  } else {
    out = {static_cast<int32_t>(n), static_cast<int32_t>(o)};
  }
  RELITE_RETURN_IF_ERROR(ctx.RequireOutputShape(0, out));
  const dnnl_data_type_t type = ctx.compute_type();
  const dnnl_dims_t src_dims = {n, i}, weights_dims = {o, i}, dst_dims = {n, o}, bias_dims = {o};
  RELITE_ASSIGN_OR_RETURN(dnnl_memory_desc_t src, ctx.TagDesc(2, src_dims, type, dnnl_ab));
  RELITE_ASSIGN_OR_RETURN(dnnl_memory_desc_t weights, ctx.AnyDesc(2, weights_dims, type));
  RELITE_ASSIGN_OR_RETURN(dnnl_memory_desc_t user_weights, ctx.TagDesc(2, weights_dims, dnnl_f32, dnnl_ab));
  RELITE_ASSIGN_OR_RETURN(dnnl_memory_desc_t dst, ctx.TagDesc(2, dst_dims, type, dnnl_ab));
  RELITE_ASSIGN_OR_RETURN(dnnl_memory_desc_t bias, ctx.TagDesc(1, bias_dims, dnnl_f32, dnnl_a));
  const bool has_bias = ctx.has_input(2);
  const DnnlApi& api = ctx.api();
  auto init = [&](const dnnl_memory_desc_t& d, dnnl_inner_product_desc_t* desc) {
    return api.dnnl_inner_product_forward_desc_init(desc, dnnl_forward_inference, &src, &weights,
                                                    has_bias ? &bias : nullptr, &d);
  };
  // Post-ops are folded only where the result is 2-D (the partition's plan).
  RELITE_ASSIGN_OR_RETURN(dnnl_primitive_desc_t pd,
                          (CreateFusedPd<dnnl_inner_product_desc_t>(ctx, p.activation, dst, init, "inner product")));
  std::vector<std::pair<int, int>> args;
  auto bind = [&]() -> Status {
    RELITE_ASSIGN_OR_RETURN(int xm, PlainInputAs(ctx, 0, src));
    RELITE_ASSIGN_OR_RETURN(int wm, ctx.ConstantArg(ctx.input(1).data, user_weights, ctx.QueryMd(pd, dnnl_query_weights_md)));
    args.push_back({DNNL_ARG_SRC, xm});
    args.push_back({DNNL_ARG_WEIGHTS, wm});
    if (has_bias) {
      RELITE_ASSIGN_OR_RETURN(int bm, ctx.ConstantArg(ctx.input(2).data, bias, ctx.QueryMd(pd, dnnl_query_weights_md, 1)));
      args.push_back({DNNL_ARG_BIAS, bm});
    }
    int ym = -1;
    if (out.size() == 2) {
      RELITE_ASSIGN_OR_RETURN(ym, ctx.OutputArgWithResidual(dst));
    } else {
      RELITE_ASSIGN_OR_RETURN(ym, NaturalOutput(ctx, dst));
    }
    args.push_back({DNNL_ARG_DST, ym});
    return Status::Ok();
  };
  if (Status st = bind(); !st.ok()) {
    api.dnnl_primitive_desc_destroy(pd);
    return st;
  }
  return ctx.Add(pd, std::move(args));
}

}  // namespace relite::onednn
