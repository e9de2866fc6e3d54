// TRANSPOSE_CONV and MediaPipe's Convolution2DTransposeBias as a oneDNN
// deconvolution: same arithmetic, padding that of the forward convolution
// from the output back to the input (TFLite's rule).
#pragma once

#include "src/core/ops/params.h"
#include "src/delegates/onednn/op_context.h"

namespace relite::onednn {

struct TransposeConvInputs {
  int input = 0, weights = 1, bias = -1;
};

// `out_h`, `out_w`: the output extent (TRANSPOSE_CONV's output_shape, or
// the custom op's rule).
Status BuildTransposedConvolution(OpContext& ctx, const TransposeConvParams& p, const TransposeConvInputs& in,
                                  int64_t out_h, int64_t out_w);

}  // namespace relite::onednn
