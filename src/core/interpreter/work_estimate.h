// How much work a node asks for, to bound what an untrusted model can demand
// (ResourceLimits::max_macs). An estimate, not a profile: multiply-accumulates
// for the weighted ops, one unit per element moved for everything else.
#pragma once

#include <vector>

#include "relite/kernel.h"
#include "relite/tensor.h"

namespace relite {

// From the node's current tensor shapes (after its Prepare, or as declared
// for a node a delegate runs). Never negative; doubles, so no shape overflows.
double EstimateNodeMacs(const Node& node, const std::vector<Tensor>& tensors);

}  // namespace relite
