// Shared emitter of TRANSPOSE_CONV and MediaPipe's Convolution2DTransposeBias,
// which differ only in where their inputs sit and how the output size is given
// (the CPU kernels share src/kernels/cpu/internal/transpose_conv_core the same way).
#pragma once

#include "src/delegates/gpu/ops/op_builder.h"

namespace relite::gpu {

struct TransposeConvInputs {
  int input = 0;          // [N, H, W, Cin]
  int weights = 1;        // [Cout, KH, KW, Cin]
  int bias = -1;          // [Cout]; -1 when the op has none (it may also be absent)
  int output_shape = -1;  // int32[4] constant, or -1: SAME -> in * stride, VALID -> (in - 1) * stride + K
};

Status EmitTransposeConvOp(OpBuilder& b, const TransposeConvInputs& inputs);

}  // namespace relite::gpu
