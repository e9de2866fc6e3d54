#include "src/kernels/cpu/internal/hybrid.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "src/kernels/cpu/internal/elementwise.h"

namespace relite::cpu {

bool IsHybridNode(const Node& node) {
  return node.input_type(0) == DataType::kFloat32 && node.inputs.size() >= 2 && node.inputs[1] >= 0 &&
         node.input_type(1) == DataType::kInt8;
}

namespace {

// One group's quantization: q = clamp(round(z + x * inverse)), value (q - z) * scale.
struct GroupQuantization {
  float scale = 1.f;
  float inverse = 0.f;
  int32_t zero_point = 0;
  bool all_zero = true;  // q = 0 everywhere, scale 1
};

GroupQuantization SymmetricParams(const float* x, int64_t n) {
  float lo = 0.f, hi = 0.f;
  for (int64_t i = 0; i < n; ++i) {
    lo = std::min(lo, x[i]);
    hi = std::max(hi, x[i]);
  }
  const float range = std::max(std::fabs(lo), std::fabs(hi));
  GroupQuantization g;
  if (range == 0.f) return g;
  g.all_zero = false;
  g.inverse = 127.f / range;
  g.scale = range / 127.f;
  return g;
}

GroupQuantization AsymmetricParams(const float* x, int64_t n) {
  float lo = 0.f, hi = 0.f;  // the range always holds 0
  for (int64_t i = 0; i < n; ++i) {
    lo = std::min(lo, x[i]);
    hi = std::max(hi, x[i]);
  }
  GroupQuantization g;
  if (lo == hi) return g;
  // TFLite's nudged zero point: from whichever end of [-128, 127] the
  // rounding error is smaller, computed in double.
  const double qmin = -128, qmax = 127;
  const double scale = (static_cast<double>(hi) - lo) / (qmax - qmin);
  const double from_min = qmin - lo / scale, from_max = qmax - hi / scale;
  const double error_min = std::fabs(qmin) + std::fabs(lo / scale);
  const double error_max = std::fabs(qmax) + std::fabs(hi / scale);
  const double zero = error_min < error_max ? from_min : from_max;
  g.all_zero = false;
  g.zero_point = zero <= qmin ? -128 : zero >= qmax ? 127 : static_cast<int>(std::round(zero));
  g.scale = static_cast<float>(scale);
  g.inverse = static_cast<float>(1.0 / static_cast<float>(scale));
  return g;
}

}  // namespace

float QuantizeSymmetricAsFloats(const float* x, int64_t n, float* out) {
  const GroupQuantization g = SymmetricParams(x, n);
  if (g.all_zero) {
    std::fill(out, out + n, 0.f);
    return 1.f;
  }
  for (int64_t i = 0; i < n; ++i) out[i] = std::clamp(std::round(x[i] * g.inverse), -127.f, 127.f);
  return g.scale;
}

float QuantizeAsymmetricAsFloats(const float* x, int64_t n, float* out) {
  const GroupQuantization g = AsymmetricParams(x, n);
  if (g.all_zero) {
    std::fill(out, out + n, 0.f);
    return 1.f;
  }
  const float z = static_cast<float>(g.zero_point);
  // q - z, with q clamped to the int8 range.
  for (int64_t i = 0; i < n; ++i) out[i] = std::clamp(std::round(z + x[i] * g.inverse), -128.f, 127.f) - z;
  return g.scale;
}

float QuantizeToInt8(const float* x, int64_t n, bool asymmetric, int8_t* q, int32_t* zero_point) {
  const GroupQuantization g = asymmetric ? AsymmetricParams(x, n) : SymmetricParams(x, n);
  *zero_point = g.zero_point;
  if (g.all_zero) {
    std::fill(q, q + n, int8_t{0});
    return 1.f;
  }
  const float z = static_cast<float>(g.zero_point);
  const float lowest = asymmetric ? -128.f : -127.f;
  for (int64_t i = 0; i < n; ++i) {
    q[i] = static_cast<int8_t>(std::clamp(std::round(z + x[i] * g.inverse), lowest, 127.f));
  }
  return g.scale;
}

SubstitutedContext::SubstitutedContext(KernelContext& outer, Tensor* input, Tensor* weights)
    : outer_(outer), node_(outer.node()), input_(input), weights_(weights) {
  if (node_.inputs.size() > 2) node_.inputs[2] = -1;  // the bias is added after scaling
}

Tensor& SubstitutedContext::input(int i) {
  if (i == 0) return *input_;
  if (i == 1) return *weights_;
  return outer_.input(i);
}

Status HybridKernelBase::Prepare(KernelContext& ctx) {
  if (ctx.num_inputs() < 2 || ctx.num_inputs() > 3 || !ctx.has_input(0) || !ctx.has_input(1)) {
    return ctx.Error("expected 2 or 3 inputs (input, weights[, bias]), got " + std::to_string(ctx.num_inputs()));
  }
  const Tensor& input = ctx.input(0);
  const Tensor& w = ctx.input(1);
  if (input.type != DataType::kFloat32) return ctx.Error("hybrid input must be float32, got " + DataTypeName(input.type));
  if (w.type != DataType::kInt8) return ctx.Error("hybrid weights must be int8, got " + DataTypeName(w.type));
  if (!w.is_constant() || w.data == nullptr) return ctx.Unsupported("hybrid int8 weights must be constant");
  if (w.sparsity != nullptr) return ctx.Unsupported("sparse hybrid weights are not supported");
  if (channel_axis_ >= w.rank()) return ctx.Error("weights have rank " + std::to_string(w.rank()));
  const int channels = w.dim(channel_axis_);
  const size_t scales = w.quant.scale.size();
  if (scales != 1 && scales != static_cast<size_t>(channels)) {
    return ctx.Error("weights need 1 or " + std::to_string(channels) + " scales, got " + std::to_string(scales));
  }
  if (scales > 1 && w.quant.quantized_dimension != channel_axis_) {
    return ctx.Error("per-channel weights must be quantized along dimension " + std::to_string(channel_axis_) +
                     ", got " + std::to_string(w.quant.quantized_dimension));
  }
  for (size_t i = 0; i < w.quant.zero_point.size(); ++i) {
    if (w.quant.zero_point[i] != 0) return ctx.Unsupported("hybrid weights must be symmetric (zero point 0)");
  }
  asymmetric_ = quantization_ == HybridInputQuantization::kAsymmetric ||
                (quantization_ == HybridInputQuantization::kAsymmetricIfPerChannel && scales > 1);
  channel_scales_.resize(static_cast<size_t>(channels));
  for (int c = 0; c < channels; ++c) {
    const float s = w.quant.scale[scales == 1 ? 0 : static_cast<size_t>(c)];
    if (!(s > 0.f) || !std::isfinite(s)) return ctx.Error("weight scale must be positive and finite");
    channel_scales_[static_cast<size_t>(c)] = s;
  }
  if (ctx.has_input(2)) {
    const Tensor& bias = ctx.input(2);
    if (bias.type != DataType::kFloat32) return ctx.Error("bias must be float32, got " + DataTypeName(bias.type));
    if (bias.num_elements() != channels) {
      return ctx.Error("bias must have " + std::to_string(channels) + " elements, got " + ShapeToString(bias.shape));
    }
  }
  // The integer weights as floats, once per weights tensor.
  if (weights_from_ != w.data || weights_.shape != w.shape) {
    const int64_t n = w.num_elements();
    weights_.type = DataType::kFloat32;
    weights_.shape = w.shape;
    weights_.name = w.name + " (int8 values)";
    weights_.owned = std::shared_ptr<uint8_t>(new (std::nothrow) uint8_t[static_cast<size_t>(n) * sizeof(float) + 1],
                                              std::default_delete<uint8_t[]>());
    if (!weights_.owned) return InternalError(ctx.node().Describe() + ": out of memory converting the weights");
    weights_.data = weights_.owned.get();
    weights_.bytes = static_cast<size_t>(n) * sizeof(float);
    weights_.allocation = Allocation::kPersistent;
    const int8_t* q = w.data_as<int8_t>();
    float* f = weights_.data_as<float>();
    for (int64_t i = 0; i < n; ++i) f[i] = static_cast<float>(q[i]);
    weights_from_ = w.data;
  }
  quantized_.type = DataType::kFloat32;
  quantized_.shape = input.shape;
  quantized_.name = input.name + " (quantized)";
  input_buffer_.resize(static_cast<size_t>(input.num_elements()) + 1);
  quantized_.data = input_buffer_.data();
  quantized_.bytes = static_cast<size_t>(input.num_elements()) * sizeof(float);
  quantized_.allocation = Allocation::kArena;
  group_ = QuantizationGroup(input);
  if (group_ <= 0) group_ = 1;
  group_scales_.resize(static_cast<size_t>(input.num_elements() / group_ + 1));

  SubstitutedContext inner(ctx, &quantized_, &weights_);
  RELITE_RETURN_IF_ERROR(inner_->Prepare(inner));
  const Tensor& out = ctx.output(0);
  if (out.rank() < 1 || out.dim(out.rank() - 1) != channels) {
    return ctx.Error("output " + ShapeToString(out.shape) + " must end in the " + std::to_string(channels) +
                     " output channels");
  }
  return Status::Ok();
}

Status HybridKernelBase::Eval(KernelContext& ctx) {
  const Tensor& input = ctx.input(0);
  const int64_t n = input.num_elements();
  const float* x = input.data_as<float>();
  float* q = input_buffer_.data();
  const int64_t groups = n / group_;
  for (int64_t g = 0; g < groups; ++g) {
    group_scales_[static_cast<size_t>(g)] = asymmetric_ ? QuantizeAsymmetricAsFloats(x + g * group_, group_, q + g * group_)
                                                        : QuantizeSymmetricAsFloats(x + g * group_, group_, q + g * group_);
  }
  SubstitutedContext inner(ctx, &quantized_, &weights_);
  RELITE_RETURN_IF_ERROR(inner_->Eval(inner));
  // out = bias + sum * (input scale * weight scale), then the activation.
  Tensor& out = ctx.output(0);
  float* y = out.data_as<float>();
  const int64_t total = out.num_elements();
  if (total == 0 || groups == 0) return Status::Ok();
  const int64_t channels = static_cast<int64_t>(channel_scales_.size());
  const int64_t per_group = total / groups;
  const float* bias = ctx.has_input(2) ? ctx.input(2).data_as<float>() : nullptr;
  const ActivationRange act = GetActivationRange(activation_);
  ctx.ParallelFor(total / channels, std::max<int64_t>(1, 4096 / channels), [&](int64_t begin, int64_t end) {
    for (int64_t row = begin; row < end; ++row) {
      const float s = group_scales_[static_cast<size_t>(row * channels / per_group)];
      float* yr = y + row * channels;
      for (int64_t c = 0; c < channels; ++c) {
        float v = yr[c] * (s * channel_scales_[static_cast<size_t>(c)]);
        if (bias != nullptr) v += bias[c];
        yr[c] = std::clamp(v, act.min, act.max);
      }
    }
  });
  return Status::Ok();
}

}  // namespace relite::cpu
