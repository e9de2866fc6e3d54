// Quantized MEAN and SUM (uint8, int8): both run in XNNPACK, which sums the
// raw values exactly in integers and requantizes once per output in float,
// folding both zero points into one float bias:
//   scale = float(in_scale / out_scale) * (1.0f / float(n))   for MEAN
//           float(in_scale / out_scale)                       for SUM
//   bias  = float(out_zp) - float(n * in_zp) * scale
//   out   = clamp(round_half_even(float(sum(q)) * scale + bias))
// every step rounded to float (no fused multiply-add). n = elements reduced
// into each output. Subtracting n * in_zp exactly before scaling, or adding
// the zero point after rounding, differs from this in about one output in a
// few hundred (values near .5), which a LiteRT sweep showed.
//
// int16 (zero points 0, as TFLite requires) has no XNNPACK kernel and runs
// TFLite's builtin ones. The sum s is TFLite's int32 accumulator (wrapping).
//   MEAN: (M, S) = QuantizeMultiplier(double(in_scale) / double(out_scale));
//         k = min(floor(log2 n), 32, 31 + S); M' = (int64(M) << k) / n;
//         out = clamp(MultiplyByQuantizedMultiplier(s, M', S - k))
//   SUM:  out = clamp(int32(round_half_away(float(s) * float(in_scale / out_scale))))
// (the reference mean with its fixed-point multiplier; the optimized sum in
// float).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>

#include "src/kernels/cpu/internal/quantized_lut.h"
#include "src/kernels/cpu/internal/reduction.h"
#include "src/kernels/cpu/internal/simple_reduce.h"

namespace relite::cpu {

class QuantizedReduceSumKernel final : public ReduceKernelBase {
 public:
  QuantizedReduceSumKernel(const Node& node, bool mean) : ReduceKernelBase(node, mean ? "MEAN" : "SUM"), mean_(mean) {}

  Status Prepare(KernelContext& ctx) override {
    RELITE_RETURN_IF_ERROR(ReduceKernelBase::Prepare(ctx));
    ScaleZeroPoint in_q, out_q;
    RELITE_RETURN_IF_ERROR(GetPerTensorQuant(ctx, ctx.input(0), "input", &in_q));
    RELITE_RETURN_IF_ERROR(GetPerTensorQuant(ctx, ctx.output(0), "output", &out_q));
    const int64_t n = plan().reduced_count;
    if (ctx.input(0).type == DataType::kInt16) {
      if (in_q.zero_point != 0 || out_q.zero_point != 0) {
        return ctx.Error("int16 input and output need zero point 0, have " + std::to_string(in_q.zero_point) +
                         " and " + std::to_string(out_q.zero_point));
      }
      int16_sum_scale_ = in_q.scale / out_q.scale;
      QuantizedMultiplier m = QuantizeMultiplier(static_cast<double>(in_q.scale) / static_cast<double>(out_q.scale));
      if (m.shift < -31) return ctx.Unsupported("input/output scales give a rescaling shift beyond 31 bits");
      if (mean_ && n > 0) {
        int k = 63 - __builtin_clzll(static_cast<uint64_t>(n));
        k = std::min(k, 32);
        k = std::min(k, 31 + m.shift);
        if (k < 0) return ctx.Unsupported("input/output scales give a rescaling shift beyond 31 bits");
        m.multiplier = static_cast<int32_t>((static_cast<int64_t>(m.multiplier) << k) / n);
        m.shift -= k;
      }
      int16_mean_multiplier_ = m;
      return Status::Ok();
    }
    scale_ = in_q.scale / out_q.scale;
    if (mean_ && n > 0) scale_ *= 1.0f / static_cast<float>(n);
    bias_ = static_cast<float>(out_q.zero_point) - static_cast<float>(n * in_q.zero_point) * scale_;
    return Status::Ok();
  }

  Status Eval(KernelContext& ctx) override {
    switch (ctx.input(0).type) {
      case DataType::kUInt8: Run<uint8_t>(ctx); break;
      case DataType::kInt8: Run<int8_t>(ctx); break;
      case DataType::kInt16: RunInt16(ctx); break;
      default: return ctx.Error("unexpected input type " + DataTypeName(ctx.input(0).type));
    }
    return Status::Ok();
  }

 protected:
  Status CheckType(KernelContext& ctx, DataType type) const override {
    if (type == DataType::kUInt8 || type == DataType::kInt8 || type == DataType::kInt16) return Status::Ok();
    return ctx.Unsupported("quantized " + DataTypeName(type) + " input is not supported (uint8, int8, int16)");
  }

  size_t ExtraScratchBytes(const ReductionPlan& plan, DataType) const override {
    return static_cast<size_t>(plan.output_elements) * sizeof(int64_t);
  }

 private:
  template <typename T>
  void Run(KernelContext& ctx) {
    int64_t* sums = reinterpret_cast<int64_t*>(static_cast<char*>(ctx.scratch()) + extra_scratch_offset());
    reduce_internal::RunReduction<reduce_internal::SumReducer<uint64_t, uint64_t, int64_t>>(
        ctx, plan(), ctx.input(0).data_as<T>(), sums, ctx.scratch());
    T* out = ctx.output(0).data_as<T>();
    const auto lo = static_cast<float>(std::numeric_limits<T>::min());
    const auto hi = static_cast<float>(std::numeric_limits<T>::max());
    for (int64_t i = 0; i < plan().output_elements; ++i) {
      const float v = static_cast<float>(sums[i]) * scale_ + bias_;
      out[i] = static_cast<T>(RoundHalfEvenSmall(std::min(hi, std::max(lo, v))));
    }
  }

  void RunInt16(KernelContext& ctx) {
    int64_t* sums = reinterpret_cast<int64_t*>(static_cast<char*>(ctx.scratch()) + extra_scratch_offset());
    reduce_internal::RunReduction<reduce_internal::SumReducer<uint64_t, uint64_t, int64_t>>(
        ctx, plan(), ctx.input(0).data_as<int16_t>(), sums, ctx.scratch());
    int16_t* out = ctx.output(0).data_as<int16_t>();
    const bool empty = plan().reduced_count == 0;
    for (int64_t i = 0; i < plan().output_elements; ++i) {
      // TFLite accumulates in int32, wrapping past 2^31.
      const auto s = static_cast<int32_t>(static_cast<uint32_t>(static_cast<uint64_t>(sums[i])));
      int32_t v = 0;
      if (empty) {
        v = 0;  // an empty reduction: TFLite leaves its zero-filled output
      } else if (mean_) {
        v = MultiplyByQuantizedMultiplier(s, int16_mean_multiplier_);
      } else {
        // clamped in float first: TFLite's float-to-int32 conversion of an
        // out-of-range value is undefined
        const float r = std::round(static_cast<float>(s) * int16_sum_scale_);
        v = static_cast<int32_t>(std::min(32767.0f, std::max(-32768.0f, r)));
      }
      out[i] = static_cast<int16_t>(std::clamp(v, -32768, 32767));
    }
  }

  bool mean_;
  float scale_ = 1.f;
  float bias_ = 0.f;
  float int16_sum_scale_ = 1.f;
  QuantizedMultiplier int16_mean_multiplier_;
};

// Quantized REDUCE_MAX / REDUCE_MIN (uint8, int8, int16): TFLite requires the
// output's scale and zero point to equal the input's (int16: zero point 0),
// so the result is the max/min of the raw values; an empty reduction gives
// the type's lowest (max) or highest (min) value, as for the other types.
template <template <typename> class Reducer>
class QuantizedMinMaxReduceKernel final : public ReduceKernelBase {
 public:
  QuantizedMinMaxReduceKernel(const Node& node, const char* op_name) : ReduceKernelBase(node, op_name) {}

  Status Prepare(KernelContext& ctx) override {
    RELITE_RETURN_IF_ERROR(ReduceKernelBase::Prepare(ctx));
    const Tensor& input = ctx.input(0);
    const Tensor& output = ctx.output(0);
    if (output.type != input.type) {
      return ctx.Error("output type " + DataTypeName(output.type) + " differs from input type " +
                       DataTypeName(input.type));
    }
    ScaleZeroPoint in_q, out_q;
    RELITE_RETURN_IF_ERROR(GetPerTensorQuant(ctx, input, "input", &in_q));
    RELITE_RETURN_IF_ERROR(GetPerTensorQuant(ctx, output, "output", &out_q));
    if (in_q.scale != out_q.scale || in_q.zero_point != out_q.zero_point) {
      return ctx.Error("output quantization (scale " + std::to_string(out_q.scale) + ", zero point " +
                       std::to_string(out_q.zero_point) + ") must equal the input's (scale " +
                       std::to_string(in_q.scale) + ", zero point " + std::to_string(in_q.zero_point) + ")");
    }
    if (input.type == DataType::kInt16 && in_q.zero_point != 0) {
      return ctx.Error("int16 input needs zero point 0, has " + std::to_string(in_q.zero_point));
    }
    return Status::Ok();
  }

  Status Eval(KernelContext& ctx) override {
    switch (ctx.input(0).type) {
      case DataType::kUInt8: Run<uint8_t>(ctx); break;
      case DataType::kInt8: Run<int8_t>(ctx); break;
      case DataType::kInt16: Run<int16_t>(ctx); break;
      default: return ctx.Error("unexpected input type " + DataTypeName(ctx.input(0).type));
    }
    return Status::Ok();
  }

 protected:
  Status CheckType(KernelContext& ctx, DataType type) const override {
    if (type == DataType::kUInt8 || type == DataType::kInt8 || type == DataType::kInt16) return Status::Ok();
    return ctx.Error("input type " + DataTypeName(type) + " is not a quantized type (uint8, int8, int16)");
  }

 private:
  template <typename T>
  void Run(KernelContext& ctx) {
    reduce_internal::RunReduction<Reducer<T>>(ctx, plan(), ctx.input(0).data_as<T>(), ctx.output(0).data_as<T>(),
                                              ctx.scratch());
  }
};

}  // namespace relite::cpu
