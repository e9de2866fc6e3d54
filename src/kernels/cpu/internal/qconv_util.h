// Quantization checks and arithmetic shared by the 8-bit conv-family kernels
// (CONV_2D, DEPTHWISE_CONV_2D, FULLY_CONNECTED, TRANSPOSE_CONV).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "relite/kernel.h"
#include "src/core/ops/params.h"
#include "src/kernels/cpu/internal/qgemm.h"
#include "src/kernels/cpu/internal/quantization.h"

namespace relite::cpu {

// Per-tensor scale and zero point of an activation tensor.
struct QParams {
  float scale = 1.f;
  int32_t zero_point = 0;
};

inline Status GetTensorQParams(const KernelContext& ctx, const Tensor& t, const char* what, QParams* out) {
  if (!t.quant.IsQuantized() || t.quant.zero_point.empty()) {
    return ctx.Error(std::string(what) + " has no quantization parameters");
  }
  if (t.quant.scale.size() != 1) return ctx.Unsupported(std::string(what) + " must be quantized per tensor");
  out->scale = t.quant.scale[0];
  out->zero_point = static_cast<int32_t>(t.quant.zero_point[0]);
  return Status::Ok();
}

// Weight scales and zero points: one per output channel (expanded from a
// per-tensor pair), along `channel_dim` of the weights.
struct WeightQParams {
  std::vector<float> scale;
  std::vector<int32_t> zero_point;
  bool per_channel = false;
};

inline Status GetWeightQParams(const KernelContext& ctx, const Tensor& w, int channel_dim, int channels,
                               WeightQParams* out) {
  const Quantization& q = w.quant;
  if (!q.IsQuantized() || q.zero_point.empty()) return ctx.Error("weights have no quantization parameters");
  out->scale.assign(static_cast<size_t>(channels), q.scale[0]);
  out->zero_point.assign(static_cast<size_t>(channels), static_cast<int32_t>(q.zero_point[0]));
  out->per_channel = q.scale.size() > 1;
  if (!out->per_channel) return Status::Ok();
  if (q.quantized_dimension != channel_dim || static_cast<int>(q.scale.size()) != channels) {
    return ctx.Error("per-channel weight quantization must have " + std::to_string(channels) +
                     " scales along dimension " + std::to_string(channel_dim) + ", got " +
                     std::to_string(q.scale.size()) + " along dimension " + std::to_string(q.quantized_dimension));
  }
  for (int c = 0; c < channels; ++c) {
    out->scale[static_cast<size_t>(c)] = q.scale[static_cast<size_t>(c)];
    const size_t zi = q.zero_point.size() == q.scale.size() ? static_cast<size_t>(c) : 0;
    out->zero_point[static_cast<size_t>(c)] = static_cast<int32_t>(q.zero_point[zi]);
  }
  return Status::Ok();
}

// The output clamp of XNNPACK's quantized operators: the fused activation's
// float range, each bound quantized with lrintf(x / scale + zp) in float32.
// The optional bias (input 2) of an 8-bit or 16x8 convolution: int32 (int64
// allowed for int16 activations), one value per output channel, constant.
// int16 activations also need zero points 0 (TFLite's rule).
inline Status CheckConvBiasAndZeroPoints(KernelContext& ctx, DataType in_type, int out_c, const QParams& in_q,
                                         const QParams& out_q) {
  if (ctx.has_input(2)) {
    const Tensor& bias = ctx.input(2);
    const bool ok = bias.type == DataType::kInt32 || (in_type == DataType::kInt16 && bias.type == DataType::kInt64);
    if (!ok) return ctx.Unsupported("bias type " + DataTypeName(bias.type) + " is not supported");
    if (bias.num_elements() != out_c) {
      return ctx.Error("bias must have " + std::to_string(out_c) + " elements, got " + ShapeToString(bias.shape));
    }
    if (!bias.is_constant() || bias.data == nullptr) return ctx.Unsupported("a bias computed by the graph is not supported");
  }
  if (in_type == DataType::kInt16 && (in_q.zero_point != 0 || out_q.zero_point != 0)) {
    return ctx.Unsupported("int16 activations must have zero point 0");
  }
  return Status::Ok();
}

inline QuantizedRange XnnActivationRange(Activation activation, DataType type, float scale, int32_t zero_point) {
  const ActivationRange r = GetActivationRange(activation);
  return {XnnQuantizeBound(r.min, scale, zero_point, type), XnnQuantizeBound(r.max, scale, zero_point, type)};
}

// TFLite's 64-bit MultiplyByQuantizedMultiplier (16x8 kernels with an int64
// bias): one rounding, (x * multiplier + 2^(30 - shift)) >> (31 - shift).
// Verified against LiteRT 2.3.0's builtin kernels.
inline int32_t MultiplyByQuantizedMultiplier64(int64_t x, QuantizedMultiplier m) {
  const int total_shift = 31 - m.shift;
  const __int128 round = static_cast<__int128>(1) << (total_shift - 1);
  const __int128 result = (static_cast<__int128>(x) * m.multiplier + round) >> total_shift;
  return static_cast<int32_t>(result);
}

// The 64-bit multiplier of TFLite's 16x8 CONV_2D / DEPTHWISE_CONV_2D kernels:
// the Q31 multiplier reduced to 16 bits with rounding, then one rounding
// shift: (x * round(m / 2^16) + 2^(14 - shift)) >> (15 - shift).
inline int32_t MultiplyByReducedMultiplier64(int64_t x, QuantizedMultiplier m) {
  const int32_t reduced = m.multiplier < 0x7FFF0000 ? ((m.multiplier + (1 << 15)) >> 16) : 0x7FFF;
  const int total_shift = 15 - m.shift;
  const __int128 round = static_cast<__int128>(1) << (total_shift - 1);
  return static_cast<int32_t>((static_cast<__int128>(x) * reduced + round) >> total_shift);
}

// TFLite's per-channel multipliers: input_scale * filter_scale / output_scale in double.
inline std::vector<QuantizedMultiplier> TfliteMultipliers(float input_scale, const std::vector<float>& filter_scale,
                                                          float output_scale) {
  std::vector<QuantizedMultiplier> m(filter_scale.size());
  for (size_t i = 0; i < m.size(); ++i) {
    const double s = static_cast<double>(input_scale) * static_cast<double>(filter_scale[i]) /
                     static_cast<double>(output_scale);
    m[i] = QuantizeMultiplier(s);
  }
  return m;
}

// XNNPACK's per-channel requantization scales: input_scale * filter_scale / output_scale in float32.
inline std::vector<float> XnnScales(float input_scale, const std::vector<float>& filter_scale, float output_scale) {
  std::vector<float> s(filter_scale.size());
  for (size_t i = 0; i < s.size(); ++i) s[i] = input_scale * filter_scale[i] / output_scale;
  return s;
}

inline bool Is8Bit(DataType t) { return t == DataType::kUInt8 || t == DataType::kInt8; }

}  // namespace relite::cpu
