// RESHAPE / SQUEEZE / EXPAND_DIMS: no primitive. The input in plain layout
// (reordered once if a producer blocked it) is the output's bytes.
#include <fmt/format.h>

#include "src/delegates/onednn/ops/ops.h"

namespace relite::onednn {

Status BuildReshapeLike(OpContext& ctx) {
  if (ctx.num_inputs() < 1 || ctx.node().outputs.size() != 1) return ctx.Refuse("expects one data input and one output");
  RELITE_RETURN_IF_ERROR(ctx.RequireFloat({0}));
  // A computed shape is only known at Invoke: the declared one could be stale.
  if (ctx.node().op_name == "RESHAPE" && ctx.has_input(1) && !ctx.is_constant(1)) {
    return ctx.Refuse("the new shape is computed by the graph");
  }
  const Shape& x = ctx.input(0).shape;
  const Shape& y = ctx.output(0).shape;
  if (NumElements(x) != NumElements(y)) {
    return ctx.Refuse(fmt::format("the output is declared {}, which does not hold the {} elements of {}", ShapeToString(y),
                                  NumElements(x), ShapeToString(x)));
  }
  RELITE_ASSIGN_OR_RETURN(dnnl_memory_desc_t held, ctx.InputDesc(0));
  RELITE_ASSIGN_OR_RETURN(dnnl_memory_desc_t plain, ctx.PlainDesc(x, held.data_type));
  RELITE_ASSIGN_OR_RETURN(dnnl_memory_desc_t out, ctx.PlainDesc(y, held.data_type));
  RELITE_ASSIGN_OR_RETURN(int in, ctx.InputArg(0, plain));
  return ctx.OutputView(0, in, out);
}

}  // namespace relite::onednn
