// Helpers shared by the 8-bit kernels of the pooling / activation / resize
// group (AVERAGE_POOL_2D, MAX_POOL_2D, MEAN, SUM, SOFTMAX, LOGISTIC, TANH,
// HARD_SWISH, RESIZE_BILINEAR, EXP, ELU, GELU): per-tensor quantization parameters, XNNPACK's
// rounding of a fused activation's bounds, and 256-entry lookup tables for
// elementwise functions of an 8-bit input.
//
// Header-only on purpose: included from src/kernels/cpu/quantized/*.cc, the
// float steps here are compiled with -ffp-contract=off like the kernels.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>

#include "relite/kernel.h"
#include "src/core/ops/params.h"
#include "src/kernels/cpu/internal/quantization.h"

namespace relite::cpu {

struct ScaleZeroPoint {
  float scale = 1.f;
  int32_t zero_point = 0;
};

// The single scale and zero point of a per-tensor quantized tensor; an
// Unsupported error (naming the node) for per-channel or missing parameters.
inline Status GetPerTensorQuant(const KernelContext& ctx, const Tensor& t, const char* what, ScaleZeroPoint* q) {
  if (t.quant.scale.size() != 1 || t.quant.zero_point.size() > 1) {
    return ctx.Unsupported(std::string(what) + " must be quantized per tensor (one scale, one zero point), got " +
                           std::to_string(t.quant.scale.size()) + " scales");
  }
  q->scale = t.quant.scale[0];
  q->zero_point = t.quant.zero_point.empty() ? 0 : static_cast<int32_t>(t.quant.zero_point[0]);
  if (!(q->scale > 0.f) || !std::isfinite(q->scale)) {
    return ctx.Error(std::string(what) + " scale must be positive and finite");
  }
  if (q->zero_point < QuantizedTypeMin(t.type) || q->zero_point > QuantizedTypeMax(t.type)) {
    return ctx.Error(std::string(what) + " zero point " + std::to_string(q->zero_point) + " is outside the " +
                     DataTypeName(t.type) + " range");
  }
  return Status::Ok();
}

// The clamp of a fused activation as the XNNPACK delegate computes it for
// quantized outputs: the bound b maps to round_half_even(float(zp) + b / scale)
// (zero point added in float before rounding, so ties follow the sum),
// intersected with the type's range. TFLite's builtin kernels use
// QuantizedActivationRange (zp + round_half_away(b / scale)) instead.
inline QuantizedRange XnnpackActivationRange(Activation activation, DataType type, float scale, int32_t zero_point) {
  const int32_t qmin = QuantizedTypeMin(type), qmax = QuantizedTypeMax(type);
  auto quantize = [&](float bound) {
    const float v = std::nearbyint(static_cast<float>(zero_point) + bound / scale);
    const float c = std::min(std::max(v, static_cast<float>(qmin)), static_cast<float>(qmax));
    return static_cast<int32_t>(c);
  };
  switch (activation) {
    case Activation::kRelu: return {quantize(0.f), qmax};
    case Activation::kRelu6: return {quantize(0.f), quantize(6.f)};
    case Activation::kReluN1To1: return {quantize(-1.f), quantize(1.f)};
    default: return {qmin, qmax};
  }
}

// A table indexed by the raw byte of an 8-bit value (uint8 v -> v, int8 v ->
// uint8_t(v)), holding the output's raw byte.
struct ByteTable {
  uint8_t entry[256];
};

// Fills `table` with f(q) for every value q of the 8-bit `type`; f returns
// the output value (already clamped to the output type's range).
template <class F>
void FillByteTable(DataType type, F&& f, ByteTable* table) {
  const int32_t lo = type == DataType::kInt8 ? -128 : 0;
  for (int32_t q = lo; q < lo + 256; ++q) {
    table->entry[static_cast<uint8_t>(q)] = static_cast<uint8_t>(f(q));
  }
}

// TFLite's 8-bit lookup table for a float function f (its LUTPopulate, used
// by EXP, ELU and GELU): for every input value q
//   x = in_scale * float(q - in_zp)
//   r = round_half_away(f(x) * (1 / out_scale)) + float(out_zp)
//   out = clamp(int32(r))
// all in float. TFLite converts r to int32 without a range check, which the
// C++ standard leaves undefined when |r| >= 2^31 (a large EXP result with a
// small output scale); here r is clamped in float first, so such entries
// saturate to the type's maximum (x86 hardware would give INT32_MIN, hence
// the minimum, in TFLite's case) and a NaN gives the minimum.
template <class F>
void FillTfliteByteTable(DataType type, ScaleZeroPoint in, ScaleZeroPoint out, F&& f, ByteTable* table) {
  const float inverse_scale = 1.0f / out.scale;
  const int32_t lo = QuantizedTypeMin(type), hi = QuantizedTypeMax(type);
  FillByteTable(
      type,
      [&](int32_t q) {
        const float x = in.scale * static_cast<float>(q - in.zero_point);
        const float r = std::round(f(x) * inverse_scale) + static_cast<float>(out.zero_point);
        if (!(r >= static_cast<float>(lo))) return lo;  // also NaN
        if (r >= static_cast<float>(hi)) return hi;
        return static_cast<int32_t>(r);
      },
      table);
}

// out[i] = table[in[i]] over n bytes (a gather; g++ keeps it scalar, which at
// one load per byte is already memory-bound for 8-bit data).
inline void ApplyByteTable(const ByteTable& table, const uint8_t* __restrict in, uint8_t* __restrict out, int64_t n) {
  for (int64_t i = 0; i < n; ++i) out[i] = table.entry[in[i]];
}

// TFLite's interpolated int16 lookup tables: 512 segments over the int16
// input range plus an end point. Entry i samples f at the segment start,
// corrected by half the error of linear interpolation at the segment's
// midpoint, so that looking up between entries is closer to f on average.
// FloatT is the precision TFLite builds the table in (double for the
// builtin SOFTMAX tables).
struct Int16Lut {
  int16_t entry[513];
};

template <typename FloatT, class F>
void FillInt16Lut(FloatT input_scale, int32_t input_zero_point, FloatT output_scale, int32_t output_zero_point, F&& f,
                  Int16Lut* lut) {
  const FloatT input_min = input_scale * static_cast<FloatT>(-32768 - input_zero_point);
  const FloatT input_max = input_scale * static_cast<FloatT>(32767 - input_zero_point);
  const FloatT output_min = output_scale * static_cast<FloatT>(-32768 - output_zero_point);
  const FloatT output_max = output_scale * static_cast<FloatT>(32767 - output_zero_point);
  constexpr int kSteps = 512;
  const FloatT step = (input_max - input_min) / static_cast<FloatT>(kSteps);
  const FloatT half_step = step / 2;
  const FloatT inv = static_cast<FloatT>(65536) / (output_max - output_min);
  auto clamp16 = [](FloatT v) {
    return static_cast<int16_t>(std::min<FloatT>(std::max<FloatT>(v, FloatT(-32768)), FloatT(32767)));
  };
  for (int i = 0; i < kSteps; ++i) {
    const FloatT x = input_min + static_cast<FloatT>(i) * step;
    const FloatT val = f(x);
    const FloatT val_mid = f(x + half_step);
    const FloatT val_next = f(input_min + static_cast<FloatT>(i + 1) * step);
    const FloatT sample = std::round(val * inv);
    const FloatT mid_interp = std::round((val_next * inv + std::round(val * inv)) / 2);
    const FloatT mid = std::round(val_mid * inv);
    const FloatT bias = std::round((mid_interp - mid) / 2);
    lut->entry[i] = clamp16(sample - bias);
  }
  lut->entry[kSteps] = clamp16(std::round(f(input_max) * inv));
}

// Looks up an int16 value: segment (value >> 7) + 256, linear interpolation
// on the low 7 bits with the slope rounded half up.
inline int16_t LookupInt16Lut(const Int16Lut& lut, int16_t value) {
  const auto index = static_cast<unsigned>(256 + (value >> 7));
  const int32_t offset = value & 0x7f;
  const int32_t base = lut.entry[index];
  const int32_t slope = lut.entry[index + 1] - base;
  return static_cast<int16_t>(base + ((slope * offset + 64) >> 7));
}

// An elementwise op of one 8-bit input computed through a ByteTable built in
// Prepare from the input and output quantization (LOGISTIC, TANH,
// HARD_SWISH). `build` fills the table; int16 and other types are rejected
// before it runs. Eval is the table lookup, threaded in chunks.
class ByteTableKernel final : public Kernel {
 public:
  using Builder = Status (*)(KernelContext& ctx, DataType type, ScaleZeroPoint in, ScaleZeroPoint out, ByteTable* table);
  explicit ByteTableKernel(Builder build) : build_(build) {}

  Status Prepare(KernelContext& ctx) override {
    if (ctx.num_inputs() != 1 || !ctx.has_input(0)) {
      return ctx.Error("expects 1 input, got " + std::to_string(ctx.num_inputs()));
    }
    if (ctx.num_outputs() != 1) return ctx.Error("expects 1 output, got " + std::to_string(ctx.num_outputs()));
    const Tensor& input = ctx.input(0);
    const Tensor& output = ctx.output(0);
    if (input.type != DataType::kUInt8 && input.type != DataType::kInt8) {
      return ctx.Unsupported("quantized " + DataTypeName(input.type) + " input is not supported (uint8, int8)");
    }
    if (output.type != input.type) {
      return ctx.Error("output type " + DataTypeName(output.type) + " differs from input type " +
                       DataTypeName(input.type));
    }
    ScaleZeroPoint in_q, out_q;
    RELITE_RETURN_IF_ERROR(GetPerTensorQuant(ctx, input, "input", &in_q));
    RELITE_RETURN_IF_ERROR(GetPerTensorQuant(ctx, output, "output", &out_q));
    RELITE_RETURN_IF_ERROR(build_(ctx, input.type, in_q, out_q, &table_));
    return ctx.ResizeOutput(0, input.shape);
  }

  Status Eval(KernelContext& ctx) override {
    const Tensor& input = ctx.input(0);
    const int64_t n = input.num_elements();
    const uint8_t* in = input.data_as<uint8_t>();
    uint8_t* out = ctx.output(0).data_as<uint8_t>();
    ctx.ParallelFor(n, int64_t{1} << 16, [&](int64_t begin, int64_t end) {
      ApplyByteTable(table_, in + begin, out + begin, end - begin);
    });
    return Status::Ok();
  }

 private:
  Builder build_;
  ByteTable table_{};
};

}  // namespace relite::cpu
