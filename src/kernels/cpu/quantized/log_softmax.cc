// Quantized LOG_SOFTMAX over the last axis, uint8 and int8, as TFLite's
// optimized builtin kernel computes it, in float from a table built once:
//   table[255 - d] = expf(float(-in_scale) * d),  d = 0..255
//   per row, with u = q + offset (offset 0 for uint8, 128 for int8, so that
//   u is in 0..255): m = max(u); sum = sequential float sum of
//   table[255 - m + u]; scale = in_scale / out_scale,
//   pre = (in_scale * m + logf(sum)) / out_scale
//   out = clamp(rint(scale * u - pre) + out_zp)
// TFLite fixes the output quantization: scale 16/256, zero point 255 (uint8)
// or 127 (int8).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <string>
#include <type_traits>

#include "src/kernels/cpu/internal/elementwise.h"
#include "src/kernels/cpu/internal/quantized_lut.h"
#include "src/kernels/cpu/kernels.h"

namespace relite::cpu {
namespace {

class QuantizedLogSoftmaxKernel final : public Kernel {
 public:
  Status Prepare(KernelContext& ctx) override {
    RELITE_RETURN_IF_ERROR(CheckArity(ctx, 1, 1));
    const Tensor& input = ctx.input(0);
    if (input.type != DataType::kUInt8 && input.type != DataType::kInt8) {
      return ctx.Unsupported("quantized " + DataTypeName(input.type) + " input is not supported (uint8, int8)");
    }
    RELITE_RETURN_IF_ERROR(CheckOutputType(ctx, 0, input.type));
    if (input.rank() < 1) return ctx.Error("input must have rank >= 1, got a scalar");
    ScaleZeroPoint in_q, out_q;
    RELITE_RETURN_IF_ERROR(GetPerTensorQuant(ctx, input, "input", &in_q));
    RELITE_RETURN_IF_ERROR(GetPerTensorQuant(ctx, ctx.output(0), "output", &out_q));
    const int32_t want_zp = QuantizedTypeMax(input.type);
    if (out_q.scale != 16.0f / 256.0f || out_q.zero_point != want_zp) {
      return ctx.Error(DataTypeName(input.type) + " output must have scale 16/256 and zero point " +
                       std::to_string(want_zp) + " (has " + std::to_string(out_q.scale) + ", " +
                       std::to_string(out_q.zero_point) + ")");
    }
    in_scale_ = in_q.scale;
    out_scale_ = out_q.scale;
    const float scale = -in_q.scale;
    for (int32_t d = 0; d <= 255; ++d) table_[255 - d] = std::exp(scale * static_cast<float>(d));
    return ctx.ResizeOutput(0, input.shape);
  }

  Status Eval(KernelContext& ctx) override {
    const Tensor& input = ctx.input(0);
    const int64_t depth = input.dim(input.rank() - 1);
    if (depth == 0) return Status::Ok();
    const int64_t rows = input.num_elements() / depth;
    if (input.type == DataType::kInt8) {
      Rows(ctx, input.data_as<int8_t>(), ctx.output(0).data_as<int8_t>(), rows, depth);
    } else {
      Rows(ctx, input.data_as<uint8_t>(), ctx.output(0).data_as<uint8_t>(), rows, depth);
    }
    return Status::Ok();
  }

 private:
  template <typename T>
  void Rows(KernelContext& ctx, const T* x, T* y, int64_t rows, int64_t depth) const {
    ctx.ParallelFor(rows, std::max<int64_t>(1, 4096 / depth), [&](int64_t begin, int64_t end) {
      for (int64_t r = begin; r < end; ++r) Row(x + r * depth, y + r * depth, depth);
    });
  }

  template <typename T>
  void Row(const T* x, T* y, int64_t depth) const {
    constexpr int32_t kOffset = std::is_same_v<T, int8_t> ? 128 : 0;  // u = q + offset is in 0..255
    constexpr int32_t kZeroPoint = std::is_same_v<T, int8_t> ? 127 : 255;
    constexpr int32_t kMin = std::is_same_v<T, int8_t> ? -128 : 0;
    constexpr int32_t kMax = std::is_same_v<T, int8_t> ? 127 : 255;
    int32_t m = 0;
    for (int64_t j = 0; j < depth; ++j) m = std::max(m, int32_t{x[j]} + kOffset);
    const float* t = table_ + (255 - m);  // t[u] = exp(in_scale * (u - m)), u <= m
    float sum = 0.f;
    for (int64_t j = 0; j < depth; ++j) sum += t[int32_t{x[j]} + kOffset];
    const float log_sum = std::log(sum);
    const float scale = in_scale_ / out_scale_;
    const float pre = (in_scale_ * static_cast<float>(m) + log_sum) / out_scale_;
    for (int64_t j = 0; j < depth; ++j) {
      const float v = scale * static_cast<float>(int32_t{x[j]} + kOffset) - pre;
      // v <= 0 and >= -(255 * in_scale + log(depth)) / out_scale: clamped in
      // float first so that the conversion is always defined.
      const float c = std::max(v, -1024.0f);
      const int32_t q = static_cast<int32_t>(std::rint(c)) + kZeroPoint;
      y[j] = static_cast<T>(std::clamp(q, kMin, kMax));
    }
  }

  float in_scale_ = 1.f;
  float out_scale_ = 1.f;
  float table_[256] = {};
};

}  // namespace

StatusOr<std::unique_ptr<Kernel>> CreateQuantizedLogSoftmax(const Node&) {
  return std::unique_ptr<Kernel>(std::make_unique<QuantizedLogSoftmaxKernel>());
}

}  // namespace relite::cpu
