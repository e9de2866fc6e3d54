#include "src/core/ops/params.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <string>

#include "src/core/ops/options.h"

namespace relite {
namespace {

StatusOr<Activation> ToActivation(const Node& node, tflite::ActivationFunctionType a) {
  const int v = static_cast<int>(a);
  if (v < 0 || v > static_cast<int>(Activation::kSignBit)) {
    return InvalidArgumentError(node.Describe() + ": unknown fused activation " + std::to_string(v));
  }
  return static_cast<Activation>(v);
}

StatusOr<PaddingType> ToPadding(const Node& node, tflite::Padding p) {
  if (p == tflite::Padding::SAME) return PaddingType::kSame;
  if (p == tflite::Padding::VALID) return PaddingType::kValid;
  return InvalidArgumentError(node.Describe() + ": unknown padding " + std::to_string(static_cast<int>(p)));
}

Status CheckPositive(const Node& node, const char* what, int32_t value) {
  if (value >= 1) return Status::Ok();
  return InvalidArgumentError(node.Describe() + ": " + what + " must be >= 1, got " + std::to_string(value));
}

}  // namespace

const char* ActivationName(Activation a) {
  switch (a) {
    case Activation::kNone: return "NONE";
    case Activation::kRelu: return "RELU";
    case Activation::kReluN1To1: return "RELU_N1_TO_1";
    case Activation::kRelu6: return "RELU6";
    case Activation::kTanh: return "TANH";
    case Activation::kSignBit: return "SIGN_BIT";
  }
  return "UNKNOWN";
}

bool IsClampActivation(Activation a) {
  return a == Activation::kNone || a == Activation::kRelu || a == Activation::kReluN1To1 || a == Activation::kRelu6;
}

ActivationRange GetActivationRange(Activation a) {
  constexpr float kInf = std::numeric_limits<float>::infinity();
  switch (a) {
    case Activation::kRelu: return {0.f, kInf};
    case Activation::kReluN1To1: return {-1.f, 1.f};
    case Activation::kRelu6: return {0.f, 6.f};
    default: return {-kInf, kInf};
  }
}

Status CheckClampActivation(const Node& node, Activation activation) {
  if (IsClampActivation(activation)) return Status::Ok();
  return UnimplementedError(node.Describe() + ": fused activation " + ActivationName(activation) +
                            " is not supported");
}

bool FuseClampInto(Activation* activation, float min, float max) {
  if (*activation != Activation::kNone) return false;
  for (Activation a : {Activation::kRelu, Activation::kRelu6, Activation::kReluN1To1}) {
    const ActivationRange r = GetActivationRange(a);
    if (r.min == min && r.max == max) {
      *activation = a;
      return true;
    }
  }
  return false;
}

PaddedDim ComputePaddedDim(PaddingType padding, int32_t in, int32_t filter, int32_t stride, int32_t dilation) {
  const int64_t eff = static_cast<int64_t>(filter - 1) * dilation + 1;
  PaddedDim d;
  int64_t out = 0;
  if (padding == PaddingType::kSame) {
    out = (static_cast<int64_t>(in) + stride - 1) / stride;
  } else {
    out = (static_cast<int64_t>(in) - eff + stride) / stride;
  }
  if (out < 0) out = 0;
  const int64_t total = (out - 1) * stride + eff - in;
  d.out = static_cast<int32_t>(out);
  d.pad_before = static_cast<int32_t>(total > 0 ? total / 2 : 0);
  return d;
}

StatusOr<PaddedDim> ComputeWindow(const Node& node, PaddingType padding, int32_t in, int32_t filter, int32_t stride,
                                  int32_t dilation) {
  constexpr int64_t kLimit = int64_t{1} << 30;
  if (in < 0 || filter < 1 || stride < 1 || dilation < 1) {
    return InvalidArgumentError(node.Describe() + ": invalid window (input " + std::to_string(in) + ", filter " +
                                std::to_string(filter) + ", stride " + std::to_string(stride) + ", dilation " +
                                std::to_string(dilation) + ")");
  }
  const int64_t eff = (static_cast<int64_t>(filter) - 1) * dilation + 1;
  const int64_t padded = std::max<int64_t>(in, eff) + eff + stride;
  if (eff > kLimit || padded > kLimit || in > kLimit) {
    return InvalidArgumentError(node.Describe() + ": filter " + std::to_string(filter) + " with dilation " +
                                std::to_string(dilation) + " and stride " + std::to_string(stride) + " over " +
                                std::to_string(in) + " values spans more than 2^30 positions");
  }
  return ComputePaddedDim(padding, in, filter, stride, dilation);
}

Status CheckTransposedWindow(const Node& node, int32_t in, int32_t out, int32_t filter, int32_t stride) {
  constexpr int64_t kLimit = int64_t{1} << 30;
  const int64_t reach = (std::max<int64_t>(in, 1) - 1) * std::max(stride, 1) + std::max(filter, 1);
  if (reach > kLimit || out > kLimit) {
    return InvalidArgumentError(node.Describe() + ": " + std::to_string(in) + " inputs with stride " +
                                std::to_string(stride) + " and filter " + std::to_string(filter) +
                                " reach past 2^30 output positions");
  }
  return Status::Ok();
}

StatusOr<Conv2DParams> ParseConv2DParams(const Node& node) {
  Conv2DParams p;
  if (const auto* o = GetOptions<tflite::Conv2DOptions>(node)) {
    RELITE_ASSIGN_OR_RETURN(p.padding, ToPadding(node, o->padding()));
    RELITE_ASSIGN_OR_RETURN(p.activation, ToActivation(node, o->fused_activation_function()));
    p.stride_w = o->stride_w();
    p.stride_h = o->stride_h();
    p.dilation_w = o->dilation_w_factor();
    p.dilation_h = o->dilation_h_factor();
  } else {
    // Absent table: every field takes its schema default, and strides of 0 are invalid.
    p.stride_w = p.stride_h = 0;
  }
  RELITE_RETURN_IF_ERROR(CheckPositive(node, "stride_w", p.stride_w));
  RELITE_RETURN_IF_ERROR(CheckPositive(node, "stride_h", p.stride_h));
  RELITE_RETURN_IF_ERROR(CheckPositive(node, "dilation_w_factor", p.dilation_w));
  RELITE_RETURN_IF_ERROR(CheckPositive(node, "dilation_h_factor", p.dilation_h));
  return p;
}

StatusOr<DepthwiseConv2DParams> ParseDepthwiseConv2DParams(const Node& node) {
  DepthwiseConv2DParams p;
  if (const auto* o = GetOptions<tflite::DepthwiseConv2DOptions>(node)) {
    RELITE_ASSIGN_OR_RETURN(p.padding, ToPadding(node, o->padding()));
    RELITE_ASSIGN_OR_RETURN(p.activation, ToActivation(node, o->fused_activation_function()));
    p.stride_w = o->stride_w();
    p.stride_h = o->stride_h();
    p.dilation_w = o->dilation_w_factor();
    p.dilation_h = o->dilation_h_factor();
    p.depth_multiplier = o->depth_multiplier();
  } else {
    p.stride_w = p.stride_h = 0;
  }
  RELITE_RETURN_IF_ERROR(CheckPositive(node, "stride_w", p.stride_w));
  RELITE_RETURN_IF_ERROR(CheckPositive(node, "stride_h", p.stride_h));
  RELITE_RETURN_IF_ERROR(CheckPositive(node, "dilation_w_factor", p.dilation_w));
  RELITE_RETURN_IF_ERROR(CheckPositive(node, "dilation_h_factor", p.dilation_h));
  if (p.depth_multiplier < 0) {
    return InvalidArgumentError(node.Describe() + ": negative depth_multiplier " + std::to_string(p.depth_multiplier));
  }
  return p;
}

StatusOr<Pool2DParams> ParsePool2DParams(const Node& node) {
  Pool2DParams p;
  const auto* o = GetOptions<tflite::Pool2DOptions>(node);
  if (o == nullptr) return InvalidArgumentError(node.Describe() + ": missing Pool2DOptions");
  RELITE_ASSIGN_OR_RETURN(p.padding, ToPadding(node, o->padding()));
  RELITE_ASSIGN_OR_RETURN(p.activation, ToActivation(node, o->fused_activation_function()));
  p.stride_w = o->stride_w();
  p.stride_h = o->stride_h();
  p.filter_w = o->filter_width();
  p.filter_h = o->filter_height();
  RELITE_RETURN_IF_ERROR(CheckPositive(node, "stride_w", p.stride_w));
  RELITE_RETURN_IF_ERROR(CheckPositive(node, "stride_h", p.stride_h));
  RELITE_RETURN_IF_ERROR(CheckPositive(node, "filter_width", p.filter_w));
  RELITE_RETURN_IF_ERROR(CheckPositive(node, "filter_height", p.filter_h));
  return p;
}

StatusOr<TransposeConvParams> ParseTransposeConvParams(const Node& node) {
  TransposeConvParams p;
  if (node.is_custom()) {
    // MediaPipe stores the C struct {int32 padding (1 = SAME, 2 = VALID),
    // int32 stride_w, int32 stride_h} as raw custom options.
    if (node.custom_options == nullptr || node.custom_options_size < 12) {
      return InvalidArgumentError(node.Describe() + ": custom options must hold padding and strides (12 bytes), got " +
                                  std::to_string(node.custom_options_size));
    }
    int32_t raw[3];
    std::memcpy(raw, node.custom_options, sizeof(raw));
    if (raw[0] == 1) {
      p.padding = PaddingType::kSame;
    } else if (raw[0] == 2) {
      p.padding = PaddingType::kValid;
    } else {
      return InvalidArgumentError(node.Describe() + ": unknown padding " + std::to_string(raw[0]));
    }
    p.stride_w = raw[1];
    p.stride_h = raw[2];
  } else if (const auto* o = GetOptions<tflite::TransposeConvOptions>(node)) {
    RELITE_ASSIGN_OR_RETURN(p.padding, ToPadding(node, o->padding()));
    RELITE_ASSIGN_OR_RETURN(p.activation, ToActivation(node, o->fused_activation_function()));
    p.stride_w = o->stride_w();
    p.stride_h = o->stride_h();
  } else {
    return InvalidArgumentError(node.Describe() + ": missing TransposeConvOptions");
  }
  RELITE_RETURN_IF_ERROR(CheckPositive(node, "stride_w", p.stride_w));
  RELITE_RETURN_IF_ERROR(CheckPositive(node, "stride_h", p.stride_h));
  return p;
}

StatusOr<FullyConnectedParams> ParseFullyConnectedParams(const Node& node) {
  FullyConnectedParams p;
  if (const auto* o = GetOptions<tflite::FullyConnectedOptions>(node)) {
    RELITE_ASSIGN_OR_RETURN(p.activation, ToActivation(node, o->fused_activation_function()));
    if (o->weights_format() != tflite::FullyConnectedOptionsWeightsFormat::DEFAULT) {
      return UnimplementedError(node.Describe() + ": shuffled weights format is not supported");
    }
    p.keep_num_dims = o->keep_num_dims();
  }
  return p;
}

StatusOr<Activation> ParseFusedActivation(const Node& node) {
  using tflite::BuiltinOptions;
  const auto type = static_cast<BuiltinOptions>(node.builtin_options_type);
  if (node.builtin_options == nullptr) return Activation::kNone;
  switch (type) {
    case BuiltinOptions::AddOptions:
      return ToActivation(node, static_cast<const tflite::AddOptions*>(node.builtin_options)->fused_activation_function());
    case BuiltinOptions::SubOptions:
      return ToActivation(node, static_cast<const tflite::SubOptions*>(node.builtin_options)->fused_activation_function());
    case BuiltinOptions::MulOptions:
      return ToActivation(node, static_cast<const tflite::MulOptions*>(node.builtin_options)->fused_activation_function());
    case BuiltinOptions::DivOptions:
      return ToActivation(node, static_cast<const tflite::DivOptions*>(node.builtin_options)->fused_activation_function());
    case BuiltinOptions::ConcatenationOptions:
      return ToActivation(node,
                          static_cast<const tflite::ConcatenationOptions*>(node.builtin_options)->fused_activation_function());
    default:
      return Activation::kNone;
  }
}

}  // namespace relite
