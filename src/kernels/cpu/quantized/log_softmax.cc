// Quantized LOG_SOFTMAX over the last axis, uint8, as TFLite's optimized
// builtin kernel computes it, in float from a table built once:
//   table[255 - d] = expf(float(-in_scale) * d),  d = 0..255
//   per row: m = max(q); sum = sequential float sum of table[255 - m + q];
//   scale = in_scale / out_scale, pre = (in_scale * m + logf(sum)) / out_scale
//   out = clamp(rint(scale * q - pre) + 255)
// TFLite fixes the output quantization: scale 16/256, zero point 255.
// int8 runs TFLite's fixed-point kernel, not implemented here: rejected.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <string>

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
    if (input.type != DataType::kUInt8) {
      return ctx.Unsupported("quantized " + DataTypeName(input.type) + " input is not supported (uint8)");
    }
    RELITE_RETURN_IF_ERROR(CheckOutputType(ctx, 0, DataType::kUInt8));
    if (input.rank() < 1) return ctx.Error("input must have rank >= 1, got a scalar");
    TensorQuant in_q, out_q;
    RELITE_RETURN_IF_ERROR(GetPerTensorQuant(ctx, input, "input", &in_q));
    RELITE_RETURN_IF_ERROR(GetPerTensorQuant(ctx, ctx.output(0), "output", &out_q));
    if (out_q.scale != 16.0f / 256.0f || out_q.zero_point != 255) {
      return ctx.Error("uint8 output must have scale 16/256 and zero point 255 (has " + std::to_string(out_q.scale) +
                       ", " + std::to_string(out_q.zero_point) + ")");
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
    const uint8_t* x = input.data_as<uint8_t>();
    uint8_t* y = ctx.output(0).data_as<uint8_t>();
    ctx.ParallelFor(rows, std::max<int64_t>(1, 4096 / depth), [&](int64_t begin, int64_t end) {
      for (int64_t r = begin; r < end; ++r) Row(x + r * depth, y + r * depth, depth);
    });
    return Status::Ok();
  }

 private:
  void Row(const uint8_t* x, uint8_t* y, int64_t depth) const {
    uint8_t m = 0;
    for (int64_t j = 0; j < depth; ++j) m = std::max(m, x[j]);
    const float* t = table_ + (255 - m);  // t[q] = exp(in_scale * (q - m)), q <= m
    float sum = 0.f;
    for (int64_t j = 0; j < depth; ++j) sum += t[x[j]];
    const float log_sum = std::log(sum);
    const float scale = in_scale_ / out_scale_;
    const float pre = (in_scale_ * static_cast<float>(m) + log_sum) / out_scale_;
    for (int64_t j = 0; j < depth; ++j) {
      const float v = scale * static_cast<float>(x[j]) - pre;
      // v <= 0 and >= -(255 * in_scale + log(depth)) / out_scale: clamped in
      // float first so that the conversion is always defined.
      const float c = std::max(v, -1024.0f);
      const int32_t q = static_cast<int32_t>(std::rint(c)) + 255;
      y[j] = static_cast<uint8_t>(std::clamp(q, 0, 255));
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
