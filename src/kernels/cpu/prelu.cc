// PRELU: out = x >= 0 ? x : alpha * x, with alpha broadcast against the
// input (typically per channel: [N,H,W,C] with alpha [C] or [1,1,C]).
// Computed as max(x, 0) + alpha * min(x, 0): equal for every finite alpha,
// and it vectorises where the select form does not.
#include <algorithm>
#include <memory>

#include "src/kernels/cpu/internal/broadcast.h"
#include "src/kernels/cpu/kernels.h"

namespace relite::cpu {
namespace {

struct PreluOp {
  float operator()(float x, float alpha) const { return std::max(x, 0.0f) + alpha * std::min(x, 0.0f); }
};

class PreluKernel final : public Kernel {
 public:
  Status Prepare(KernelContext& ctx) override {
    RELITE_RETURN_IF_ERROR(CheckBinaryOperands(ctx));
    RELITE_RETURN_IF_ERROR(CheckComputedType(ctx, ctx.input(0).type, {DataType::kFloat32}));
    return PrepareBroadcast(ctx, &plan_, sizeof(float));
  }

  Status Eval(KernelContext& ctx) override {
    RunBinaryOp<float>(ctx, plan_, PreluOp{});
    return Status::Ok();
  }

 private:
  BroadcastPlan plan_;
};

}  // namespace

StatusOr<std::unique_ptr<Kernel>> CreatePrelu(const Node&) {
  return std::unique_ptr<Kernel>(std::make_unique<PreluKernel>());
}

}  // namespace relite::cpu
