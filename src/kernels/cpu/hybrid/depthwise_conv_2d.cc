// Hybrid DEPTHWISE_CONV_2D: float input, int8 filter [1, KH, KW, C * M]
// (scales per output channel, dimension 3). Each batch's input is quantized
// as a whole, asymmetrically for a per-channel filter (internal/hybrid.h).
#include <memory>

#include "src/kernels/cpu/internal/hybrid.h"

namespace relite::cpu {

StatusOr<std::unique_ptr<Kernel>> CreateHybridDepthwiseConv2D(const Node& node) {
  RELITE_ASSIGN_OR_RETURN(DepthwiseConv2DParams params, ParseDepthwiseConv2DParams(node));
  RELITE_RETURN_IF_ERROR(CheckClampActivation(node, params.activation));
  DepthwiseConv2DParams inner = params;
  inner.activation = Activation::kNone;
  return std::unique_ptr<Kernel>(std::make_unique<HybridPerBatchKernel>(
      MakeFloatDepthwiseConv2D(inner), params.activation, 3, HybridInputQuantization::kAsymmetricIfPerChannel));
}

}  // namespace relite::cpu
