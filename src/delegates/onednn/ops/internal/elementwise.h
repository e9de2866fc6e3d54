// Elementwise ops on oneDNN: unary ones as an eltwise primitive on the
// input's own layout, binary ones as a binary primitive (broadcasting).
#pragma once

#include <vector>

#include "src/delegates/onednn/op_context.h"

namespace relite::onednn {

Status BuildEltwise(OpContext& ctx, dnnl_alg_kind_t alg, float alpha = 0.0f, float beta = 0.0f);

// `commutative`: the operands may be exchanged so that the full-shape one
// comes first (oneDNN broadcasts only the second). `post` runs on the result
// before the fused activation.
Status BuildBinary(OpContext& ctx, dnnl_alg_kind_t alg, bool commutative, const std::vector<PostOp>& post = {});

}  // namespace relite::onednn
