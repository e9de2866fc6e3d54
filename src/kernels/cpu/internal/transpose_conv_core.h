// Float32 transposed convolution shared by TRANSPOSE_CONV and MediaPipe's
// Convolution2DTransposeBias custom op; they differ only in where their
// inputs sit and how the output size is given.
#pragma once

#include <memory>

#include "relite/kernel.h"
#include "src/core/ops/params.h"

namespace relite::cpu {

struct TransposeConvLayout {
  int min_inputs = 3;
  int max_inputs = 3;
  int input = 0;    // [N, H, W, Cin]
  int weights = 1;  // [Cout, KH, KW, Cin]
  int bias = -1;    // [Cout]; -1 when the op has none (may also be absent at run time)
  // int32[4] tensor giving the output shape, or -1 to derive it from the
  // padding: SAME -> in * stride, VALID -> (in - 1) * stride + K.
  int output_shape = -1;
};

std::unique_ptr<Kernel> MakeTransposeConvKernel(const TransposeConvLayout& layout, const TransposeConvParams& params);

// Reads a TRANSPOSE_CONV output_shape tensor `t` (constant int32[4]) into
// *shape, checking its batch and channels against the input and weights.
Status ReadTransposeConvOutputShape(const KernelContext& ctx, const Tensor& t, int32_t batch, int32_t out_c, Shape* shape);

}  // namespace relite::cpu
