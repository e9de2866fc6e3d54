// The 8-bit (and int16) ADD, SUB and MUL kernel: broadcasting like the float
// kernel, a fused clamp activation, and the arithmetic TFLite+XNNPACK uses:
//  - ADD/SUB uint8/int8 with both input/output scale ratios in [2^-10, 2^8)
//    (what the XNNPACK delegate accepts): XNNPACK's 21-bit multipliers and
//    one arithmetic shift (MakeXnnAddParams).
//  - MUL uint8/int8 with (s_a * s_b) / s_out in [2^-16, 2^8): XNNPACK's fp32
//    requantization of (a - za) * (b - zb).
//  - anything else (int16, or ratios the delegate refuses): TFLite's builtin
//    fixed-point arithmetic (Q31 multipliers, double rounding).
//  - ADD/SUB int16 whose three scales are powers of two (TFLite's CheckedLog2)
//    while the options' pot_scale_int16 is set (the schema default): TFLite's
//    POT kernel, one input divided by 2^k with rounding, the other taken as
//    it is, and a saturating int16 sum or difference.
// The activation range rounds like the arithmetic's owner does; a clamp fused
// later (a standalone RELU*, which TFLite runs with its builtin kernel)
// rounds the TFLite way and is intersected with it.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <type_traits>

#include "relite/kernel.h"
#include "src/core/ops/options.h"
#include "src/core/ops/params.h"
#include "src/kernels/cpu/internal/broadcast.h"
#include "src/kernels/cpu/internal/elementwise.h"
#include "src/kernels/cpu/internal/quantization.h"
#include "src/kernels/cpu/internal/quantized_elementwise.h"
#include "src/kernels/cpu/isa/kernel_table.h"

namespace relite::cpu {

enum class QuantizedBinaryOp { kAdd, kSub, kMul };

template <QuantizedBinaryOp kOp>
class QuantizedBinaryKernel final : public Kernel {
 public:
  QuantizedBinaryKernel(Activation activation, bool pot_scale_int16)
      : activation_(activation), pot_scale_int16_(pot_scale_int16) {}

  Status Prepare(KernelContext& ctx) override {
    RELITE_RETURN_IF_ERROR(CheckBinaryOperands(ctx));
    type_ = ctx.input(0).type;
    TensorQuant a, b, out;
    RELITE_RETURN_IF_ERROR(ReadTensorQuant(ctx, ctx.input(0), "input 0", &a, true));
    RELITE_RETURN_IF_ERROR(ReadTensorQuant(ctx, ctx.input(1), "input 1", &b, true));
    RELITE_RETURN_IF_ERROR(ReadTensorQuant(ctx, ctx.output(0), "output", &out, true));
    a_zp_ = a.zero_point;
    b_zp_ = b.zero_point;
    out_zp_ = out.zero_point;
    const bool eight_bit = type_ != DataType::kInt16;
    use_pot_ = false;
    use_xnnpack_ = false;
    if constexpr (kOp == QuantizedBinaryOp::kMul) {
      const float product_ratio = (a.scale * b.scale) / out.scale;
      use_xnnpack_ = eight_bit && product_ratio >= 1.0f / 65536.0f && product_ratio < 256.0f;
      if (use_xnnpack_) {
        mul_scale_ = product_ratio;
      } else {
        mul_multiplier_ = QuantizeMultiplier(static_cast<double>(a.scale) * static_cast<double>(b.scale) /
                                             static_cast<double>(out.scale));
      }
    } else if (!eight_bit && pot_scale_int16_ && IsPot(a.scale, &a_log2_) && IsPot(b.scale, &b_log2_) &&
               IsPot(out.scale, &out_log2_)) {
      use_pot_ = true;
      const int a_shift = a_log2_ - out_log2_, b_shift = b_log2_ - out_log2_;
      if ((a_shift != 0 && b_shift != 0) || a_shift > 0 || b_shift > 0) {
        return ctx.Unsupported("int16 power-of-two scales need one input at the output's scale and the other at or "
                               "below it, got input shifts " + std::to_string(a_shift) + " and " +
                               std::to_string(b_shift));
      }
      pot_shift_a_ = a_shift != 0;
      // Beyond 15 every int16 rounds to 0 alike; 31 keeps the shift defined.
      pot_right_shift_ = std::min(31, -(a_shift != 0 ? a_shift : b_shift));
    } else {
      use_xnnpack_ = eight_bit && XnnAddRatioSupported(a.scale / out.scale) && XnnAddRatioSupported(b.scale / out.scale);
      if (use_xnnpack_) {
        xnn_add_ = MakeXnnAddParams(a.scale, b.scale, out.scale, a.zero_point, b.zero_point,
                                    kOp == QuantizedBinaryOp::kSub);
      } else {
        tfl_add_ = MakeTfliteAddParams(a.scale, b.scale, out.scale, eight_bit ? 20 : 15);
      }
    }
    float lo, hi;
    ActivationBounds(activation_, &lo, &hi);
    range_ = use_xnnpack_ ? XnnClampRange(lo, hi, out) : TfliteClampRange(lo, hi, out);
    if (fused_) range_ = Intersect(range_, TfliteClampRange(fused_lo_, fused_hi_, out));
    if (range_.min > range_.max) range_.max = range_.min;
    return PrepareBroadcast(ctx, &plan_, DataTypeSize(type_));
  }

  Status Eval(KernelContext& ctx) override {
    switch (type_) {
      case DataType::kUInt8: Run<uint8_t>(ctx); break;
      case DataType::kInt8: Run<int8_t>(ctx); break;
      case DataType::kInt16: Run<int16_t>(ctx); break;
      default: return ctx.Error("unexpected type " + DataTypeName(type_));
    }
    return Status::Ok();
  }

  bool FuseClamp(float min, float max) override {
    fused_lo_ = fused_ ? std::max(fused_lo_, min) : min;
    fused_hi_ = fused_ ? std::min(fused_hi_, max) : max;
    fused_ = true;
    return true;
  }

 private:
  template <typename T>
  void Run(KernelContext& ctx) const {
    const T* a = ctx.input(0).data_as<T>();
    const T* b = ctx.input(1).data_as<T>();
    T* out = ctx.output(0).data_as<T>();
    const int32_t lo = range_.min, hi = range_.max, zo = out_zp_, za = a_zp_, zb = b_zp_;
    if constexpr (kOp == QuantizedBinaryOp::kMul) {
      if (use_xnnpack_) {
        const float scale = mul_scale_;
        const float flo = static_cast<float>(lo - zo), fhi = static_cast<float>(hi - zo);
        RunBroadcastBinary(ctx, plan_, a, b, out, [=](T x, T y) {
          const int32_t acc = (static_cast<int32_t>(x) - za) * (static_cast<int32_t>(y) - zb);
          const float scaled = std::min(fhi, std::max(flo, static_cast<float>(acc) * scale));
          return static_cast<T>(RoundHalfEvenSmall(scaled) + zo);
        });
      } else {
        const QuantizedMultiplier m = mul_multiplier_;
        RunBroadcastBinary(ctx, plan_, a, b, out, [=](T x, T y) {
          const int32_t acc = (static_cast<int32_t>(x) - za) * (static_cast<int32_t>(y) - zb);
          const int64_t v = int64_t{MultiplyByQuantizedMultiplier(acc, m)} + zo;  // no overflow at absurd scales
          return static_cast<T>(std::clamp<int64_t>(v, lo, hi));
        });
      }
    } else {
      if (use_xnnpack_) {
        const uint32_t am = static_cast<uint32_t>(xnn_add_.a_multiplier);
        const uint32_t bm = static_cast<uint32_t>(xnn_add_.b_multiplier);
        const uint32_t bias = static_cast<uint32_t>(xnn_add_.bias);
        const int shift = xnn_add_.shift;
        if constexpr (sizeof(T) == 1) {
          // Same shapes: the ISA's vectorised array loop.
          if (plan_.rank == 1 && plan_.a_stride[0] == 1 && plan_.b_stride[0] == 1) {
            const XnnAddArrayParams p{am, bm, bias, shift, zo, lo, hi};
            ParallelChunks(ctx, plan_.num_elements, kDefaultMinChunk, [&](int64_t begin, int64_t end) {
              if constexpr (std::is_same_v<T, uint8_t>) {
                Kernels().xnn_add_u8(a + begin, b + begin, out + begin, end - begin, p);
              } else {
                Kernels().xnn_add_s8(a + begin, b + begin, out + begin, end - begin, p);
              }
            });
            return;
          }
        }
        RunBroadcastBinary(ctx, plan_, a, b, out, [=](T x, T y) {
          // Two's-complement wrap like XNNPACK's int32 lanes; the true sum fits.
          const auto acc = static_cast<int32_t>(bias + static_cast<uint32_t>(static_cast<int32_t>(x)) * am +
                                                static_cast<uint32_t>(static_cast<int32_t>(y)) * bm);
          const int32_t v = (acc >> shift) + zo;
          return static_cast<T>(std::min(std::max(v, lo), hi));
        });
      } else if (use_pot_) {
        // Only reached for int16 (Prepare); the saturating sum is in int32.
        const int e = pot_right_shift_;
        const bool shift_a = pot_shift_a_;
        RunBroadcastBinary(ctx, plan_, a, b, out, [=](T x, T y) {
          int32_t sx = x, sy = y;
          if (shift_a) {
            sx = RoundingDivideByPOT(sx, e);
          } else {
            sy = RoundingDivideByPOT(sy, e);
          }
          const int32_t v = kOp == QuantizedBinaryOp::kSub ? sx - sy : sx + sy;
          return static_cast<T>(std::clamp(v, std::max<int32_t>(lo, -32768), std::min<int32_t>(hi, 32767)));
        });
      } else {
        const TfliteAddParams p = tfl_add_;
        RunBroadcastBinary(ctx, plan_, a, b, out, [=](T x, T y) {
          const int32_t sx = MultiplyByQuantizedMultiplier((static_cast<int32_t>(x) - za) * (1 << p.left_shift), p.a);
          const int32_t sy = MultiplyByQuantizedMultiplier((static_cast<int32_t>(y) - zb) * (1 << p.left_shift), p.b);
          const int32_t sum = kOp == QuantizedBinaryOp::kSub ? sx - sy : sx + sy;
          const int64_t v = int64_t{MultiplyByQuantizedMultiplier(sum, p.out)} + zo;
          return static_cast<T>(std::clamp<int64_t>(v, lo, hi));
        });
      }
    }
  }

  // TFLite's CheckedLog2: log2(scale) within 1e-3 of an integer.
  static bool IsPot(float scale, int* log2_rounded) {
    const float l = std::log(scale) * (1.0f / std::log(2.0f));
    const float r = std::round(l);
    *log2_rounded = static_cast<int>(r);
    return std::abs(l - r) < 1e-3f;
  }

  Activation activation_;
  bool pot_scale_int16_ = true;
  bool use_pot_ = false;
  bool pot_shift_a_ = false;
  int pot_right_shift_ = 0;
  int a_log2_ = 0, b_log2_ = 0, out_log2_ = 0;
  bool fused_ = false;
  float fused_lo_ = 0.0f;
  float fused_hi_ = 0.0f;
  DataType type_ = DataType::kUInt8;
  bool use_xnnpack_ = false;
  int32_t a_zp_ = 0, b_zp_ = 0, out_zp_ = 0;
  XnnAddParams xnn_add_;
  TfliteAddParams tfl_add_;
  float mul_scale_ = 0.0f;
  QuantizedMultiplier mul_multiplier_;
  QuantizedRange range_{0, 0};
  BroadcastPlan plan_;
};

template <QuantizedBinaryOp kOp>
StatusOr<std::unique_ptr<Kernel>> CreateQuantizedBinary(const Node& node) {
  RELITE_ASSIGN_OR_RETURN(const Activation activation, ParseFusedActivation(node));
  RELITE_RETURN_IF_ERROR(CheckClampActivation(node, activation));
  bool pot_scale_int16 = true;  // the schema default, also without options
  if constexpr (kOp == QuantizedBinaryOp::kAdd) {
    if (const auto* o = GetOptions<tflite::AddOptions>(node)) pot_scale_int16 = o->pot_scale_int16();
  } else if constexpr (kOp == QuantizedBinaryOp::kSub) {
    if (const auto* o = GetOptions<tflite::SubOptions>(node)) pot_scale_int16 = o->pot_scale_int16();
  }
  return std::unique_ptr<Kernel>(std::make_unique<QuantizedBinaryKernel<kOp>>(activation, pot_scale_int16));
}

}  // namespace relite::cpu
