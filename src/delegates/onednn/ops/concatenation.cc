// CONCATENATION -> concat; each input in the layout it is held (oneDNN
// picks the result's), constants in the compute type.
#include <fmt/format.h>

#include "src/core/ops/options.h"
#include "src/delegates/onednn/ops/ops.h"

namespace relite::onednn {

Status BuildConcatenation(OpContext& ctx) {
  const int n = ctx.num_inputs();
  if (n < 1 || ctx.node().outputs.size() != 1) return ctx.Refuse("expects inputs and one output");
  std::vector<int> all;
  for (int i = 0; i < n; ++i) {
    if (!ctx.has_input(i)) return ctx.Refuse(fmt::format("input {} is missing", i));
    all.push_back(i);
  }
  for (int i : all) RELITE_RETURN_IF_ERROR(ctx.RequireFloat({i}));
  RELITE_ASSIGN_OR_RETURN(Activation act, ParseFusedActivation(ctx.node()));
  if (act != Activation::kNone) return ctx.Refuse(fmt::format("fused activation {} is not supported", ActivationName(act)));
  const Shape& y = ctx.output(0).shape;
  const int rank = static_cast<int>(y.size());
  int axis = 0;
  if (const auto* options = GetOptions<tflite::ConcatenationOptions>(ctx.node())) axis = options->axis();
  if (axis < 0) axis += rank;
  if (rank < 1 || axis < 0 || axis >= rank) return ctx.Refuse(fmt::format("axis {} is out of range for rank {}", axis, rank));
  int64_t total = 0;
  for (int i : all) {
    const Shape& s = ctx.input(i).shape;
    if (static_cast<int>(s.size()) != rank) return ctx.Refuse("the inputs' ranks differ from the output's");
    for (int d = 0; d < rank; ++d) {
      if (d != axis && s[static_cast<size_t>(d)] != y[static_cast<size_t>(d)]) return ctx.Refuse("the inputs' shapes do not concatenate to the output");
    }
    total += s[static_cast<size_t>(axis)];
  }
  if (total != y[static_cast<size_t>(axis)]) return ctx.Refuse("the inputs' shapes do not concatenate to the output");
  std::vector<dnnl_memory_desc_t> srcs;
  for (int i : all) {
    RELITE_ASSIGN_OR_RETURN(dnnl_memory_desc_t md, ctx.InputDesc(i));
    if (md.data_type != ctx.compute_type()) {
      RELITE_ASSIGN_OR_RETURN(md, ctx.PlainDesc(ctx.input(i).shape, ctx.compute_type()));
    }
    srcs.push_back(md);
  }
  dnnl_primitive_desc_t pd = nullptr;
  const dnnl_status_t st = ctx.api().dnnl_concat_primitive_desc_create(
      &pd, nullptr, n, DnnlAxis(axis, srcs[0].ndims), srcs.data(), nullptr, ctx.engine());
  if (st != dnnl_success) return ctx.Refuse(fmt::format("oneDNN has no concat for this case ({})", DnnlStatusName(st)));
  std::vector<std::pair<int, int>> args;
  Status status;
  for (int i : all) {
    auto m = ctx.InputArg(i, srcs[static_cast<size_t>(i)]);
    if (!m.ok()) {
      status = m.status();
      break;
    }
    args.push_back({DNNL_ARG_MULTIPLE_SRC + i, *m});
  }
  if (status.ok()) {
    auto out = ctx.OutputArg(0, ctx.QueryMd(pd, dnnl_query_dst_md));
    if (out.ok()) {
      args.push_back({DNNL_ARG_DST, *out});
    } else {
      status = out.status();
    }
  }
  if (!status.ok()) {
    ctx.api().dnnl_primitive_desc_destroy(pd);
    return status;
  }
  return ctx.Add(pd, std::move(args));
}

}  // namespace relite::onednn
