// L2_NORMALIZATION over the last axis (float32): x / max(sqrt(sum(x^2)), 1e-6),
// TFLite's epsilon, so an all-zero row stays zero. As in TFLite the input has
// rank <= 4 and the fused activation must be NONE.
#include <algorithm>
#include <cmath>
#include <memory>
#include <string>

#include "src/core/ops/options.h"
#include "src/kernels/cpu/internal/elementwise.h"
#include "src/kernels/cpu/kernels.h"

namespace relite::cpu {
namespace {

class L2NormalizationKernel final : public Kernel {
 public:
  Status Prepare(KernelContext& ctx) override {
    RELITE_RETURN_IF_ERROR(CheckArity(ctx, 1, 1));
    const Tensor& in = ctx.input(0);
    if (in.type != DataType::kFloat32) {
      if (IsQuantizedStorageType(in.type)) return ctx.Unsupported("quantized " + DataTypeName(in.type) + " input is not supported yet");
      return ctx.Error("input type " + DataTypeName(in.type) + " is not supported (float32)");
    }
    RELITE_RETURN_IF_ERROR(CheckOutputType(ctx, 0, DataType::kFloat32));
    if (in.rank() < 1 || in.rank() > 4) return ctx.Error("input rank must be 1..4, got " + std::to_string(in.rank()));
    return ctx.ResizeOutput(0, in.shape);
  }

  Status Eval(KernelContext& ctx) override {
    const Tensor& in = ctx.input(0);
    const int64_t depth = in.dim(in.rank() - 1);
    if (depth == 0) return Status::Ok();
    const int64_t rows = in.num_elements() / depth;
    const float* x = in.data_as<float>();
    float* y = ctx.output(0).data_as<float>();
    ctx.ParallelFor(rows, std::max<int64_t>(1, 8192 / depth), [&](int64_t begin, int64_t end) {
      for (int64_t r = begin; r < end; ++r) {
        const float* xr = x + r * depth;
        float* yr = y + r * depth;
        float squares = 0.f;
        for (int64_t i = 0; i < depth; ++i) squares += xr[i] * xr[i];
        const float norm = std::max(std::sqrt(squares), 1e-6f);
        for (int64_t i = 0; i < depth; ++i) yr[i] = xr[i] / norm;
      }
    });
    return Status::Ok();
  }
};

}  // namespace

StatusOr<std::unique_ptr<Kernel>> CreateL2Normalization(const Node& node) {
  if (const auto* o = GetOptions<tflite::L2NormOptions>(node)) {
    if (o->fused_activation_function() != tflite::ActivationFunctionType::NONE) {
      return UnimplementedError(node.Describe() + ": a fused activation is not supported (TFLite requires NONE)");
    }
  }
  return std::unique_ptr<Kernel>(std::make_unique<L2NormalizationKernel>());
}

}  // namespace relite::cpu
