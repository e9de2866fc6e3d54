// The op builders of ops/op_list.inc.
#pragma once

#include <string>
#include <vector>

#include "src/delegates/onednn/op_context.h"

namespace relite::onednn {

#define RELITE_ONEDNN_BUILTIN_OP(CODE, BUILD, MINV, MAXV) Status BUILD(OpContext& ctx);
#define RELITE_ONEDNN_CUSTOM_OP(NAME, BUILD, MINV, MAXV) Status BUILD(OpContext& ctx);
#include "src/delegates/onednn/ops/op_list.inc"
#undef RELITE_ONEDNN_BUILTIN_OP
#undef RELITE_ONEDNN_CUSTOM_OP

// Every op the delegate has a builder for (builtin and custom names).
std::vector<std::string> SupportedOpNames();

// Shared builders (ops/internal/).
// AVERAGE_POOL_2D / MAX_POOL_2D.
Status BuildPool(OpContext& ctx, dnnl_alg_kind_t alg);
// MEAN / SUM over constant axes.
Status BuildReduction(OpContext& ctx, dnnl_alg_kind_t alg);
// RESIZE_BILINEAR / RESIZE_NEAREST_NEIGHBOR: 4-D input and output of the
// same batch and depth (CheckResampleShapes), then oneDNN's resampling.
Status CheckResampleShapes(OpContext& ctx);
Status BuildResampling(OpContext& ctx, dnnl_alg_kind_t alg);
// RESHAPE / SQUEEZE / EXPAND_DIMS: the plain bytes under the output's shape.
Status BuildReshapeLike(OpContext& ctx);

}  // namespace relite::onednn
