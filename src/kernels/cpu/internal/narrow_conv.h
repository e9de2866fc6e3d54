// Float convolution with at most four output channels (segmentation and
// heat-map heads, e.g. [256,256,8] -> [256,256,1]).
//
// The GEMM path would pad such a product to an 8- or 16-wide weight panel
// and gather im2col rows first; here every output is a dot product read
// straight from the NHWC input, one contiguous run per filter row (or per
// tap where padding or dilation cuts the row), so no lane is wasted and
// nothing is copied.
#pragma once

namespace relite::cpu {

inline constexpr int kNarrowConvMaxOutputs = 4;

struct NarrowConvGeometry {
  int in_h = 0, in_w = 0, in_c = 0;
  int out_h = 0, out_w = 0, out_c = 0;  // out_c in [1, kNarrowConvMaxOutputs]
  int filter_h = 0, filter_w = 0;
  int stride_h = 1, stride_w = 1;
  int dilation_h = 1, dilation_w = 1;
  int pad_top = 0, pad_left = 0;
};

// Output rows [row_begin, row_end) of the whole batch (row = b * out_h + oy).
// `filter` is the [out_c, KH, KW, in_c] tensor as stored; `bias` may be null.
void NarrowConvRows(const NarrowConvGeometry& g, const float* input, const float* filter, const float* bias,
                    float act_min, float act_max, float* output, int row_begin, int row_end);

}  // namespace relite::cpu
