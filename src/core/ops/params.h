// Backend-neutral parameters of the ops shared by CPU kernels and delegates:
// parsed once from the model, with schema defaults where options are absent
// and every value validated (strides and dilations >= 1, known enums).
#pragma once

#include <cstdint>

#include "relite/kernel.h"
#include "relite/status.h"

namespace relite {

enum class Activation : uint8_t { kNone = 0, kRelu = 1, kReluN1To1 = 2, kRelu6 = 3, kTanh = 4, kSignBit = 5 };
enum class PaddingType : uint8_t { kSame = 0, kValid = 1 };

const char* ActivationName(Activation a);

// Clamp bounds for the clamp-style activations (NONE, RELU, RELU_N1_TO_1,
// RELU6). TANH and SIGN_BIT are not clamps: IsClampActivation() says false.
struct ActivationRange {
  float min;
  float max;
};
bool IsClampActivation(Activation a);
ActivationRange GetActivationRange(Activation a);
// Unimplemented, naming the node, unless `activation` is a clamp: the CPU
// kernels apply fused activations only as clamps.
Status CheckClampActivation(const Node& node, Activation activation);
// Takes over a following clamp node: when *activation is NONE and [min, max]
// is the range of RELU, RELU6 or RELU_N1_TO_1, sets *activation to it.
bool FuseClampInto(Activation* activation, float min, float max);

// Output extent and leading padding of one spatial dimension, TFLite rules:
// SAME: out = ceil(in / stride); VALID: out = ceil((in - eff_filter + 1) / stride)
// with eff_filter = (filter - 1) * dilation + 1; pad_before = floor(total_pad / 2).
struct PaddedDim {
  int32_t out = 0;
  int32_t pad_before = 0;
};
PaddedDim ComputePaddedDim(PaddingType padding, int32_t in, int32_t filter, int32_t stride, int32_t dilation);

// ComputePaddedDim for a kernel: first checks, in 64 bits, that the window
// arithmetic kernels do in int32 (x * stride - pad + k * dilation, the
// effective filter extent, the padded extent) stays below 2^30, so that no
// stride, dilation or filter size a model declares can overflow an index;
// InvalidArgument naming the node otherwise.
StatusOr<PaddedDim> ComputeWindow(const Node& node, PaddingType padding, int32_t in, int32_t filter, int32_t stride,
                                  int32_t dilation);

// A transposed convolution scatters input pixel i to outputs i * stride -
// pad + k: checks, in 64 bits, that (in - 1) * stride + filter and the output
// stay below 2^30 (the int32 index arithmetic of the kernels).
Status CheckTransposedWindow(const Node& node, int32_t in, int32_t out, int32_t filter, int32_t stride);

struct Conv2DParams {
  PaddingType padding = PaddingType::kSame;
  int32_t stride_w = 1, stride_h = 1;
  int32_t dilation_w = 1, dilation_h = 1;
  Activation activation = Activation::kNone;
};
StatusOr<Conv2DParams> ParseConv2DParams(const Node& node);

struct DepthwiseConv2DParams {
  PaddingType padding = PaddingType::kSame;
  int32_t stride_w = 1, stride_h = 1;
  int32_t dilation_w = 1, dilation_h = 1;
  int32_t depth_multiplier = 1;  // 0 in some models: derive from shapes
  Activation activation = Activation::kNone;
};
StatusOr<DepthwiseConv2DParams> ParseDepthwiseConv2DParams(const Node& node);

struct Pool2DParams {
  PaddingType padding = PaddingType::kSame;
  int32_t stride_w = 1, stride_h = 1;
  int32_t filter_w = 1, filter_h = 1;
  Activation activation = Activation::kNone;
};
StatusOr<Pool2DParams> ParsePool2DParams(const Node& node);

struct TransposeConvParams {
  PaddingType padding = PaddingType::kSame;
  int32_t stride_w = 1, stride_h = 1;
  Activation activation = Activation::kNone;
};
// Reads TRANSPOSE_CONV builtin options, or the custom options of MediaPipe's
// Convolution2DTransposeBias (a packed {padding, stride_w, stride_h} of int32).
StatusOr<TransposeConvParams> ParseTransposeConvParams(const Node& node);

struct FullyConnectedParams {
  Activation activation = Activation::kNone;
  bool keep_num_dims = false;
};
StatusOr<FullyConnectedParams> ParseFullyConnectedParams(const Node& node);

// Fused activation of the elementwise binary ops (ADD, SUB, MUL, DIV) and
// CONCATENATION; NONE when options are absent.
StatusOr<Activation> ParseFusedActivation(const Node& node);

}  // namespace relite
