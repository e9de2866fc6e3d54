// LOG_SOFTMAX over the last axis (float32): (x - max) - log(sum(exp(x - max))),
// max-shifted so no exponent overflows.
#include <algorithm>
#include <cmath>
#include <memory>
#include <string>

#include "src/kernels/cpu/internal/elementwise.h"
#include "src/kernels/cpu/kernels.h"

namespace relite::cpu {
namespace {

class LogSoftmaxKernel final : public Kernel {
 public:
  Status Prepare(KernelContext& ctx) override {
    RELITE_RETURN_IF_ERROR(CheckArity(ctx, 1, 1));
    const Tensor& in = ctx.input(0);
    if (in.type != DataType::kFloat32) {
      if (IsQuantizedStorageType(in.type)) return ctx.Unsupported("quantized " + DataTypeName(in.type) + " input is not supported yet");
      return ctx.Error("input type " + DataTypeName(in.type) + " is not supported (float32)");
    }
    RELITE_RETURN_IF_ERROR(CheckOutputType(ctx, 0, DataType::kFloat32));
    if (in.rank() < 1) return ctx.Error("input must have rank >= 1, got a scalar");
    return ctx.ResizeOutput(0, in.shape);
  }

  Status Eval(KernelContext& ctx) override {
    const Tensor& in = ctx.input(0);
    const int64_t depth = in.dim(in.rank() - 1);
    if (depth == 0) return Status::Ok();
    const int64_t rows = in.num_elements() / depth;
    const float* x = in.data_as<float>();
    float* y = ctx.output(0).data_as<float>();
    ctx.ParallelFor(rows, std::max<int64_t>(1, 4096 / depth), [&](int64_t begin, int64_t end) {
      for (int64_t r = begin; r < end; ++r) {
        const float* xr = x + r * depth;
        float* yr = y + r * depth;
        float m = xr[0];
        for (int64_t i = 1; i < depth; ++i) m = std::max(m, xr[i]);
        float sum = 0.f;
        for (int64_t i = 0; i < depth; ++i) sum += std::exp(xr[i] - m);
        // (x - max) - log(sum), not x - (max + log(sum)): large logits would
        // lose the log term to rounding.
        const float log_sum = std::log(sum);
        for (int64_t i = 0; i < depth; ++i) yr[i] = (xr[i] - m) - log_sum;
      }
    });
    return Status::Ok();
  }
};

}  // namespace

StatusOr<std::unique_ptr<Kernel>> CreateLogSoftmax(const Node&) {
  return std::unique_ptr<Kernel>(std::make_unique<LogSoftmaxKernel>());
}

}  // namespace relite::cpu
