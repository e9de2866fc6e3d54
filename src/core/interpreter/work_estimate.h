// How much work a node asks for, to bound what an untrusted model can demand
// (ResourceLimits::max_macs). An estimate, not a profile: multiply-accumulates
// for the weighted ops, one unit per element moved for everything else.
#pragma once

#include <functional>
#include <vector>

#include "relite/kernel.h"
#include "relite/tensor.h"

namespace relite {

// Tensors by index, null for none: the interpreter's own, or a delegate's
// view of the graph.
using TensorLookup = std::function<const Tensor*(int tensor_index)>;

// The multiply-accumulates of a weighted node (convolutions, transposed
// convolutions, matrix products, recurrent layers) from its tensors' shapes;
// -1 for any other op. Declared shapes are not trusted: never negative,
// doubles, so no shape overflows.
double EstimateWeightedMacs(const Node& node, const TensorLookup& tensor);

// From the node's current tensor shapes (after its Prepare, or as declared
// for a node a delegate runs). Never negative; doubles, so no shape overflows.
double EstimateNodeMacs(const Node& node, const std::vector<Tensor>& tensors);

}  // namespace relite
