// Rules shared by RESIZE_BILINEAR and RESIZE_NEAREST_NEIGHBOR (NHWC).
#pragma once

#include <cstdint>

#include "relite/kernel.h"

namespace relite::cpu {

// Checks the inputs (4-D input, constant int32 size tensor of 2 positive
// values), that the output type equals the input type, and sets the output
// shape [batch, new_height, new_width, channels]. `fused_inputs` operands of
// fused nodes (a residual ADD) follow the two inputs.
Status PrepareResize(KernelContext& ctx, int32_t* out_h, int32_t* out_w, int fused_inputs = 0);

// Source step per output step along one axis (TFLite's rule).
inline float ResizeScale(int32_t in_size, int32_t out_size, bool align_corners) {
  if (align_corners && out_size > 1) return static_cast<float>(in_size - 1) / static_cast<float>(out_size - 1);
  return static_cast<float>(in_size) / static_cast<float>(out_size);
}

}  // namespace relite::cpu
