// Hybrid CONV_2D: float input, int8 filter. Each batch's input is quantized
// as a whole: symmetric for a per-tensor filter, asymmetric (with a zero
// point) for a per-channel one, as TFLite's two hybrid paths do
// (internal/hybrid.h).
#include <memory>

#include "src/kernels/cpu/internal/hybrid.h"

namespace relite::cpu {

StatusOr<std::unique_ptr<Kernel>> CreateHybridConv2D(const Node& node) {
  RELITE_ASSIGN_OR_RETURN(Conv2DParams params, ParseConv2DParams(node));
  RELITE_RETURN_IF_ERROR(CheckClampActivation(node, params.activation));
  Conv2DParams inner = params;
  inner.activation = Activation::kNone;
  return std::unique_ptr<Kernel>(std::make_unique<HybridPerBatchKernel>(
      MakeFloatConv2D(inner), params.activation, 0, HybridInputQuantization::kAsymmetricIfPerChannel));
}

}  // namespace relite::cpu
