// Shared emitters of the elementwise ops: unary f(x) and binary f(a, b) with
// broadcasting, both with an optional fused clamp.
#pragma once

#include <string>

#include "src/delegates/gpu/ops/op_builder.h"

namespace relite::gpu {

// `expr` is an expression of the float4 `x`, e.g. "exp(x)"; `param` is
// available to it as the float `p`. `lo`/`hi` clamp the result (ACT).
Status EmitUnary(OpBuilder& b, const std::string& expr, float param = 0.f,
                 float lo = -std::numeric_limits<float>::infinity(), float hi = std::numeric_limits<float>::infinity());
// A unary function of `x` alone (no `p`), e.g. LOGISTIC: as EmitUnary, and a
// producer may apply it in its epilogue instead (FoldUnaryNodes).
Status EmitFoldableUnary(OpBuilder& b, const std::string& expr);

// `expr` is an expression of the float4s `a` and `b`. Inputs broadcast
// against each other in every dimension; reads the node's fused activation
// when `fused_activation`.
Status EmitBinary(OpBuilder& b, const std::string& expr, bool fused_activation, DataType type = DataType::kFloat32);

// ADD (`subtract` false) or SUB: exact 8-bit arithmetic (IntegerAdd) when
// both inputs and the output are 8-bit with scale ratios XNNPACK's ADD
// takes, as the CPU kernel then computes; a float a +- b otherwise.
Status EmitAddOrSub(OpBuilder& b, bool subtract);

}  // namespace relite::gpu
