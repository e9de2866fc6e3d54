// Hybrid FULLY_CONNECTED: float input, int8 weights (per tensor or per
// output unit). Each input row is quantized on its own, symmetric unless
// asymmetric_quantize_inputs is set (internal/hybrid.h).
#include <memory>

#include "src/core/ops/options.h"
#include "src/kernels/cpu/internal/hybrid.h"

namespace relite::cpu {
namespace {

class HybridFullyConnectedKernel final : public HybridKernelBase {
 public:
  using HybridKernelBase::HybridKernelBase;

 protected:
  int64_t QuantizationGroup(const Tensor&) const override { return depth_; }

 public:
  Status Prepare(KernelContext& ctx) override {
    if (ctx.num_inputs() >= 2 && ctx.has_input(1) && ctx.input(1).rank() == 2) depth_ = ctx.input(1).dim(1);
    return HybridKernelBase::Prepare(ctx);
  }

 private:
  int64_t depth_ = 1;
};

}  // namespace

StatusOr<std::unique_ptr<Kernel>> CreateHybridFullyConnected(const Node& node) {
  RELITE_ASSIGN_OR_RETURN(FullyConnectedParams params, ParseFullyConnectedParams(node));
  RELITE_RETURN_IF_ERROR(CheckClampActivation(node, params.activation));
  const auto* o = GetOptions<tflite::FullyConnectedOptions>(node);
  const bool asymmetric = o != nullptr && o->asymmetric_quantize_inputs();
  FullyConnectedParams inner = params;
  inner.activation = Activation::kNone;
  return std::unique_ptr<Kernel>(std::make_unique<HybridFullyConnectedKernel>(MakeFloatFullyConnected(inner),
                                                                              params.activation, 0,
                                                                              asymmetric ? HybridInputQuantization::kAsymmetric
                                                                                         : HybridInputQuantization::kSymmetric));
}

}  // namespace relite::cpu
