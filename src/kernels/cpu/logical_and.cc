// LOGICAL_AND: bool elementwise and with broadcasting. bool tensors hold one
// byte per element; any non-zero byte reads as true, the output is 0 or 1.
#include <cstdint>
#include <memory>

#include "src/kernels/cpu/internal/broadcast.h"
#include "src/kernels/cpu/kernels.h"

namespace relite::cpu {
namespace {

struct LogicalAndOp {
  uint8_t operator()(uint8_t a, uint8_t b) const { return static_cast<uint8_t>((a != 0) & (b != 0)); }
};

class LogicalAndKernel final : public Kernel {
 public:
  Status Prepare(KernelContext& ctx) override {
    RELITE_RETURN_IF_ERROR(CheckBinaryOperands(ctx));
    RELITE_RETURN_IF_ERROR(CheckType(ctx, ctx.input(0), "input", DataType::kBool));
    return PrepareBroadcast(ctx, &plan_, sizeof(uint8_t));
  }

  Status Eval(KernelContext& ctx) override {
    RunBinaryOp<uint8_t>(ctx, plan_, LogicalAndOp{});
    return Status::Ok();
  }

 private:
  BroadcastPlan plan_;
};

}  // namespace

StatusOr<std::unique_ptr<Kernel>> CreateLogicalAnd(const Node&) {
  return std::unique_ptr<Kernel>(std::make_unique<LogicalAndKernel>());
}

}  // namespace relite::cpu
