// Pieces shared by the 8-bit elementwise kernels (ADD, SUB, MUL, QUANTIZE,
// RELU*, LEAKY_RELU, PRELU, CONCATENATION): per-tensor quantization
// parameters, the two rounding rules for a fused activation's range, and the
// parameter derivations of XNNPACK's quantized ADD and convert.
//
// Which arithmetic an op uses follows what TFLite with its default XNNPACK
// delegate does (docs/QUANTIZATION.md): XNNPACK's when the delegate accepts
// the node, TFLite's builtin kernel's otherwise.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <string>

#include "relite/kernel.h"
#include "relite/tensor.h"
#include "src/core/ops/params.h"
#include "src/core/ops/quantized_add.h"
#include "src/kernels/cpu/internal/quantization.h"
#include "src/core/base/saturate.h"

namespace relite::cpu {

// One tensor's per-tensor quantization and its dtype's range.
struct TensorQuant {
  float scale = 1.0f;
  int32_t zero_point = 0;
  int32_t qmin = 0;
  int32_t qmax = 0;
};

// Reads per-tensor quantization of an int8/uint8/int16 tensor; errors name the
// tensor. int16 needs zero point 0 when `int16_zero_point_must_be_zero` (TFLite's rule for
// most int16 kernels).
inline Status ReadTensorQuant(const KernelContext& ctx, const Tensor& t, const std::string& what,
                              TensorQuant* q, bool int16_zero_point_must_be_zero = false) {
  if (!IsQuantizedIntType(t.type)) {
    return ctx.Error(what + " has type " + DataTypeName(t.type) + ", expected uint8, int8 or int16");
  }
  if (t.quant.scale.size() != 1) {
    return ctx.Error(what + " needs one quantization scale, has " + std::to_string(t.quant.scale.size()));
  }
  if (t.quant.zero_point.size() > 1) {
    return ctx.Error(what + " has " + std::to_string(t.quant.zero_point.size()) + " zero points, expected one");
  }
  q->scale = t.quant.scale[0];
  if (!(q->scale > 0.0f) || !std::isfinite(q->scale)) return ctx.Error(what + " has a non-positive scale");
  q->qmin = QuantizedTypeMin(t.type);
  q->qmax = QuantizedTypeMax(t.type);
  const int64_t zp = t.quant.zero_point.empty() ? 0 : t.quant.zero_point[0];
  if (zp < q->qmin || zp > q->qmax) return ctx.Error(what + " zero point " + std::to_string(zp) + " is out of range");
  q->zero_point = static_cast<int32_t>(zp);
  if (int16_zero_point_must_be_zero && t.type == DataType::kInt16 && zp != 0) {
    return ctx.Unsupported(what + ": int16 needs zero point 0, has " + std::to_string(zp));
  }
  return Status::Ok();
}

// TFLite's rounding of a clamp [lo, hi] (float, hi may be +inf) into the
// output's quantized domain: zp + round_half_away(v / scale), cut to the
// type's range. What a RELU/RELU6/RELU_N1_TO_1 run by TFLite's builtin
// kernel clamps to.
inline QuantizedRange TfliteClampRange(float lo, float hi, const TensorQuant& out) {
  QuantizedRange r{out.qmin, out.qmax};
  if (std::isfinite(lo)) r.min = std::max(r.min, SaturateToInt32(static_cast<double>(out.zero_point) + std::round(lo / out.scale)));
  if (std::isfinite(hi)) r.max = std::min(r.max, SaturateToInt32(static_cast<double>(out.zero_point) + std::round(hi / out.scale)));
  return r;
}

// XNNPACK's rounding of a fused activation's [lo, hi] for a quantized output:
// round_half_even(v / scale + zp) in float, clamped to the type's range.
inline QuantizedRange XnnClampRange(float lo, float hi, const TensorQuant& out) {
  auto quantize = [&](float v) {
    const float x = v / out.scale + static_cast<float>(out.zero_point);
    const float c = std::min(std::max(x, static_cast<float>(out.qmin)), static_cast<float>(out.qmax));
    return static_cast<int32_t>(std::nearbyint(c));
  };
  QuantizedRange r{out.qmin, out.qmax};
  if (lo > -std::numeric_limits<float>::infinity()) r.min = quantize(lo);
  if (hi < std::numeric_limits<float>::infinity()) r.max = quantize(hi);
  return r;
}

inline QuantizedRange Intersect(QuantizedRange a, QuantizedRange b) {
  return {std::max(a.min, b.min), std::min(a.max, b.max)};
}

// The float bounds of a clamp activation (NONE gives (-inf, +inf)).
inline void ActivationBounds(Activation activation, float* lo, float* hi) {
  const ActivationRange r = GetActivationRange(activation);
  *lo = r.min;
  *hi = r.max;
}

// TFLite's builtin ADD/SUB parameters (uint8/int8: left shift 20; general
// int16: 15): each input is scaled by scale_i / (2 * max_scale) after a left
// shift, summed, then scaled by 2 * max_scale / (2^left_shift * out_scale),
// every multiplier a Q31 fixed-point value (double rounding).
struct TfliteAddParams {
  int left_shift = 20;
  QuantizedMultiplier a;
  QuantizedMultiplier b;
  QuantizedMultiplier out;
};

inline TfliteAddParams MakeTfliteAddParams(float a_scale, float b_scale, float out_scale, int left_shift) {
  TfliteAddParams p;
  p.left_shift = left_shift;
  const double twice_max = 2.0 * std::max(static_cast<double>(a_scale), static_cast<double>(b_scale));
  p.a = QuantizeMultiplier(static_cast<double>(a_scale) / twice_max);
  p.b = QuantizeMultiplier(static_cast<double>(b_scale) / twice_max);
  p.out = QuantizeMultiplier(twice_max / (static_cast<double>(int64_t{1} << left_shift) * static_cast<double>(out_scale)));
  return p;
}

// XNNPACK's same-type requantizing convert (QUANTIZE int8->int8 or
// uint8->uint8): multiplier = round_half_even(256 * in_scale / out_scale),
// out = ((x - zp_in) * multiplier + zp_out * 256 + 128) >> 8.
inline bool XnnConvertRatioSupported(float ratio) { return ratio >= 1.0f / 256.0f && ratio <= 128.0f; }

inline int32_t XnnConvertMultiplier(float in_scale, float out_scale) {
  return static_cast<int32_t>(std::nearbyint(256.0f * (in_scale / out_scale)));
}

}  // namespace relite::cpu

namespace relite::cpu {

// The quantized RELU / RELU6 / RELU_N1_TO_1 kernel (TFLite builtin: XNNPACK
// takes these only for float): out = clamp(zp_out + MultiplyByQuantizedMultiplier(
// x - zp_in, Q31(float(in_scale / out_scale))), TfliteClampRange(lo, hi)).
// Defined in quantized/relu.cc.
std::unique_ptr<Kernel> MakeQuantizedClampKernel(float lo, float hi);

}  // namespace relite::cpu
