// DIV: out = activation(in0 / in1) with broadcasting. float32 follows IEEE
// (x/0 = +-inf or NaN); int32 truncates toward zero, a zero divisor makes
// Eval fail, and INT32_MIN / -1 wraps to INT32_MIN instead of trapping.
#include <algorithm>
#include <limits>
#include <memory>

#include "src/core/ops/params.h"
#include "src/kernels/cpu/internal/broadcast.h"
#include "src/kernels/cpu/kernels.h"

namespace relite::cpu {
namespace {

struct DivOp {
  float operator()(float a, float b) const { return a / b; }
  int32_t operator()(int32_t a, int32_t b) const {
    // The divisor was checked non-zero; -1 would trap for INT32_MIN.
    return b == -1 ? WrappingSub(int32_t{0}, a) : a / b;
  }
};

class DivKernel final : public Kernel {
 public:
  explicit DivKernel(Activation activation) : activation_(activation) {}

  Status Prepare(KernelContext& ctx) override {
    RELITE_RETURN_IF_ERROR(CheckBinaryOperands(ctx));
    type_ = ctx.input(0).type;
    RELITE_RETURN_IF_ERROR(CheckComputedType(ctx, type_, {DataType::kFloat32, DataType::kInt32}));
    return PrepareBroadcast(ctx, &plan_, DataTypeSize(type_));
  }

  Status Eval(KernelContext& ctx) override {
    switch (type_) {
      case DataType::kFloat32:
        RunBinaryOp<float>(ctx, plan_, DivOp{}, activation_);
        return Status::Ok();
      case DataType::kInt32: {
        if (plan_.num_elements == 0) return Status::Ok();
        const Tensor& divisor = ctx.input(1);
        const int32_t* d = divisor.data_as<int32_t>();
        if (std::find(d, d + divisor.num_elements(), 0) != d + divisor.num_elements()) {
          return ctx.Error("integer division by zero (divisor '" + divisor.name + "' holds a 0)");
        }
        RunBinaryOp<int32_t>(ctx, plan_, DivOp{}, activation_);
        return Status::Ok();
      }
      default:
        return ctx.Error("unexpected type " + DataTypeName(type_));
    }
  }

 private:
  Activation activation_;
  DataType type_ = DataType::kFloat32;
  BroadcastPlan plan_;
};

}  // namespace

StatusOr<std::unique_ptr<Kernel>> CreateDiv(const Node& node) {
  RELITE_ASSIGN_OR_RETURN(const Activation activation, ParseFusedActivation(node));
  RELITE_RETURN_IF_ERROR(CheckClampActivation(node, activation));
  return std::unique_ptr<Kernel>(std::make_unique<DivKernel>(activation));
}

}  // namespace relite::cpu
