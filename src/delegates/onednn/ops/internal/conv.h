// The convolution family on oneDNN: CONV_2D, DEPTHWISE_CONV_2D (groups =
// channels), TRANSPOSE_CONV and Convolution2DTransposeBias (deconvolution).
#pragma once

#include <cstdint>

#include "src/core/ops/params.h"
#include "src/delegates/onednn/op_context.h"

namespace relite::onednn {

struct ConvSpec {
  bool deconvolution = false;
  int src_input = 0;    // the activation's input index
  int src_tensor = -1;  // or, with a folded PAD, the PAD's input tensor
  int bias_input = -1;  // the bias's input index, -1 for none
  int64_t n = 0, ic = 0, ih = 0, iw = 0, oc = 0, oh = 0, ow = 0, kh = 0, kw = 0;
  int64_t groups = 1;
  int64_t stride_h = 1, stride_w = 1, dilation_h = 1, dilation_w = 1;  // TFLite's (>= 1)
  int64_t pad_top = 0, pad_left = 0, pad_bottom = 0, pad_right = 0;
  // The filter's float32 bytes as oneDNN's weights dims: {OC, IC, KH, KW}, or
  // {G, OC/G, IC/G, KH, KW} with groups.
  dnnl_memory_desc_t user_weights{};
  const void* weights = nullptr;
  Activation activation = Activation::kNone;
};

// oneDNN padding (left, right) of one spatial dimension of a convolution or
// pooling window such that oneDNN's extent rule, out = (in - eff_filter +
// pad_l + pad_r) / stride + 1, gives TFLite's `out`; Refuse when none does.
struct DnnlWindow {
  int64_t pad_l = 0, pad_r = 0;
};
StatusOr<DnnlWindow> ConvWindow(OpContext& ctx, PaddingType padding, int64_t in, int64_t filter, int64_t stride,
                                int64_t dilation, int64_t out);

// From n, ih, iw, oc, kh, kw, strides and dilations: the output extent
// (checked against the declared output), oneDNN's padding, and the PAD the
// partition folded in front (ApplyPrePad).
Status PlanWindow(OpContext& ctx, PaddingType padding, ConvSpec* spec);

// Folds the PAD the partition planned before this convolution (if any):
// `spec` describes the convolution of the PAD's output; afterwards it reads
// the PAD's input with the PAD's amounts added to its padding.
Status ApplyPrePad(OpContext& ctx, ConvSpec* spec);

Status BuildConvolution(OpContext& ctx, const ConvSpec& spec);

}  // namespace relite::onednn
