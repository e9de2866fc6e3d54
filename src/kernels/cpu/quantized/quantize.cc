// QUANTIZE: float32 -> uint8/int8/int16, and requantization between uint8,
// int8 and int16 (per-tensor parameters). The arithmetic follows whoever runs
// the node under TFLite with its default XNNPACK delegate:
//  - float32 -> uint8/int8 (XNNPACK): x * (1 / scale) in float, clamped to
//    [qmin - zp, qmax - zp], rounded half to even, plus zp.
//  - float32 -> int16 (TFLite builtin): the same for blocks of 8 elements,
//    round_half_away(double(x) / double(scale)) + zp for the last n % 8.
//  - uint8 -> uint8 / int8 -> int8 with in/out scale ratio in [2^-8, 2^7]
//    (XNNPACK convert): m = round_half_even(256 * ratio),
//    out = ((x - zp_in) * m + 256 * zp_out + 128) >> 8, clamped.
//  - every other integer pair (uint8 <-> int8, int16, other ratios; TFLite
//    builtin Requantize) with m = Q31(double(in_scale) / double(out_scale)):
//    8-bit -> 8-bit, blocks of 16 elements: zp_out +
//    rounding_shift_half_up(SaturatingRoundingDoublingHighMul(x - zp_in, m)),
//    the last n % 16 elements and
//    int16 on either side: zp_out + MultiplyByQuantizedMultiplier(x - zp_in, m)
//    (half away from zero), clamped.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <string>
#include <type_traits>

#include "src/kernels/cpu/internal/elementwise.h"
#include "src/kernels/cpu/internal/quantization.h"
#include "src/kernels/cpu/internal/quantized_elementwise.h"
#include "src/kernels/cpu/kernels.h"

namespace relite::cpu {
namespace {

enum class Mode { kFromFloat, kXnnConvert, kTfliteRequantize };

class QuantizeKernel final : public Kernel {
 public:
  Status Prepare(KernelContext& ctx) override {
    RELITE_RETURN_IF_ERROR(CheckArity(ctx, 1, 1));
    const Tensor& input = ctx.input(0);
    const Tensor& output = ctx.output(0);
    in_type_ = input.type;
    out_type_ = output.type;
    RELITE_RETURN_IF_ERROR(ReadTensorQuant(ctx, output, "output", &out_));
    if (in_type_ == DataType::kFloat32) {
      mode_ = Mode::kFromFloat;
      inverse_scale_ = 1.0f / out_.scale;
    } else if (IsQuantizedIntType(in_type_)) {
      RELITE_RETURN_IF_ERROR(ReadTensorQuant(ctx, input, "input", &in_));
      const float ratio = in_.scale / out_.scale;
      if (in_type_ == out_type_ && in_type_ != DataType::kInt16 && XnnConvertRatioSupported(ratio)) {
        mode_ = Mode::kXnnConvert;
        convert_multiplier_ = XnnConvertMultiplier(in_.scale, out_.scale);
      } else {
        mode_ = Mode::kTfliteRequantize;
        requant_ = QuantizeMultiplier(static_cast<double>(in_.scale) / static_cast<double>(out_.scale));
      }
    } else {
      return ctx.Unsupported("quantizing " + DataTypeName(in_type_) + " is not supported");
    }
    return ctx.ResizeOutput(0, input.shape);
  }

  Status Eval(KernelContext& ctx) override {
    switch (out_type_) {
      case DataType::kUInt8: return EvalTo<uint8_t>(ctx);
      case DataType::kInt8: return EvalTo<int8_t>(ctx);
      case DataType::kInt16: return EvalTo<int16_t>(ctx);
      default: return ctx.Error("unexpected output type " + DataTypeName(out_type_));
    }
  }

 private:
  template <typename Out>
  Status EvalTo(KernelContext& ctx) const {
    switch (in_type_) {
      case DataType::kFloat32: FromFloat<Out>(ctx); return Status::Ok();
      case DataType::kUInt8: FromInt<uint8_t, Out>(ctx); return Status::Ok();
      case DataType::kInt8: FromInt<int8_t, Out>(ctx); return Status::Ok();
      case DataType::kInt16: FromInt<int16_t, Out>(ctx); return Status::Ok();
      default: return ctx.Error("unexpected input type " + DataTypeName(in_type_));
    }
  }

  template <typename Out>
  void FromFloat(KernelContext& ctx) const {
    const Tensor& input = ctx.input(0);
    const int64_t n = input.num_elements();
    const float* in = input.data_as<float>();
    Out* out = ctx.output(0).data_as<Out>();
    const int32_t zp = out_.zero_point, qmin = out_.qmin, qmax = out_.qmax;
    const float inv = inverse_scale_;
    const float lo = static_cast<float>(qmin - zp), hi = static_cast<float>(qmax - zp);
    auto vector_rule = [=](float x) {
      const float v = std::min(hi, std::max(lo, x * inv));
      return static_cast<Out>(RoundHalfEvenSmall(v) + zp);
    };
    if constexpr (!std::is_same_v<Out, int16_t>) {
      UnaryMap(ctx, in, out, n, kDefaultMinChunk, vector_rule);
    } else {
      // TFLite's int16 kernel runs blocks of 8 with the rule above and the
      // last n % 8 elements with round_half_away(double(x) / double(scale)).
      const int64_t head = n - n % 8;
      UnaryMap(ctx, in, out, head, kDefaultMinChunk, vector_rule);
      const double scale = out_.scale;
      for (int64_t i = head; i < n; ++i) {
        const double v = std::min(static_cast<double>(hi),
                                  std::max(static_cast<double>(lo), std::round(static_cast<double>(in[i]) / scale)));
        out[i] = static_cast<Out>(static_cast<int32_t>(v) + zp);
      }
    }
  }

  template <typename In, typename Out>
  void FromInt(KernelContext& ctx) const {
    const Tensor& input = ctx.input(0);
    const int64_t n = input.num_elements();
    const In* in = input.data_as<In>();
    Out* out = ctx.output(0).data_as<Out>();
    const int32_t zi = in_.zero_point, zo = out_.zero_point, qmin = out_.qmin, qmax = out_.qmax;
    if (mode_ == Mode::kXnnConvert) {
      const int32_t m = convert_multiplier_;
      const int32_t bias = zo * 256 - m * zi + 0x80;
      UnaryMap(ctx, in, out, n, kDefaultMinChunk, [=](In x) {
        const int32_t v = (bias + static_cast<int32_t>(x) * m) >> 8;
        return static_cast<Out>(std::min(std::max(v, qmin), qmax));
      });
    } else {
      const QuantizedMultiplier m = requant_;
      if constexpr (sizeof(In) == 1 && sizeof(Out) == 1) {
        // TFLite's vectorised 8-bit Requantize handles blocks of 16: the high
        // multiply, then a rounding right shift that rounds halves up (no
        // away-from-zero fixup). The last n % 16 elements take the scalar
        // MultiplyByQuantizedMultiplier (halves away from zero). Both are
        // functions of one byte: tabulate them (256 entries each) and look up.
        const int left = m.shift > 0 ? m.shift : 0;
        const int right = m.shift > 0 ? 0 : -m.shift;
        const int64_t half = right > 0 ? int64_t{1} << (right - 1) : 0;
        Out block_table[256], tail_table[256];
        for (int b = 0; b < 256; ++b) {
          const auto x = static_cast<int32_t>(static_cast<In>(b));
          const int32_t h = SaturatingRoundingDoublingHighMul(static_cast<int32_t>(static_cast<uint32_t>(x - zi) << left), m.multiplier);
          // Sums in 64 bits: an absurd scale ratio saturates the multiply,
          // and adding the zero point must not overflow then.
          const int64_t v = ((static_cast<int64_t>(h) + half) >> right) + zo;
          block_table[b] = static_cast<Out>(std::clamp<int64_t>(v, qmin, qmax));
          const int64_t t = int64_t{MultiplyByQuantizedMultiplier(x - zi, m)} + zo;
          tail_table[b] = static_cast<Out>(std::clamp<int64_t>(t, qmin, qmax));
        }
        const Out* table = block_table;
        const int64_t head = n - n % 16;
        // A model's input QUANTIZE often only moves uint8 to int8 at the same
        // scale (zero point - 128): the table is then a flip of the top bit
        // (or the identity), which vectorises where a lookup does not.
        bool flip = true, same = true;
        for (int b = 0; b < 256; ++b) {
          flip &= static_cast<uint8_t>(block_table[b]) == (b ^ 0x80);
          same &= static_cast<uint8_t>(block_table[b]) == b;
        }
        if (flip || same) {
          const uint8_t bits = flip ? 0x80 : 0x00;
          UnaryMap(ctx, in, out, head, kDefaultMinChunk,
                   [bits](In x) { return static_cast<Out>(static_cast<uint8_t>(static_cast<uint8_t>(x) ^ bits)); });
        } else {
          UnaryMap(ctx, in, out, head, kDefaultMinChunk, [table](In x) { return table[static_cast<uint8_t>(x)]; });
        }
        for (int64_t i = head; i < n; ++i) out[i] = tail_table[static_cast<uint8_t>(in[i])];
      } else {
        UnaryMap(ctx, in, out, n, kDefaultMinChunk, [=](In x) {
          const int64_t v = int64_t{MultiplyByQuantizedMultiplier(static_cast<int32_t>(x) - zi, m)} + zo;
          return static_cast<Out>(std::clamp<int64_t>(v, qmin, qmax));
        });
      }
    }
  }

  DataType in_type_ = DataType::kFloat32;
  DataType out_type_ = DataType::kUInt8;
  TensorQuant in_, out_;
  Mode mode_ = Mode::kFromFloat;
  float inverse_scale_ = 1.0f;
  int32_t convert_multiplier_ = 256;
  QuantizedMultiplier requant_;
};

}  // namespace

StatusOr<std::unique_ptr<Kernel>> CreateQuantize(const Node&) {
  return std::unique_ptr<Kernel>(std::make_unique<QuantizeKernel>());
}

}  // namespace relite::cpu
