// Helpers for ops whose output shape depends on the VALUES of an input
// (FILL dims, TILE multiples, MIRROR_PAD paddings, ...). relite computes
// shapes in Prepare, so such an input must be constant (a model constant or
// a folded node's output); anything else is reported as unsupported.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "relite/kernel.h"
#include "relite/status.h"
#include "relite/tensor.h"

namespace relite::cpu {

// Values of the int32/int64 input `index` (constant, or read at Invoke: the
// NeedInputValues status is returned while they are not known),
// InvalidArgument for a missing input or another dtype. `what` names the
// input ("multiples").
Status ReadShapeInput(KernelContext& ctx, int index, const std::string& what, std::vector<int64_t>* values);

// Ok when input `index`'s values can be read now, else NeedInputValues (for
// inputs of other dtypes whose values decide the output shape, e.g. RANGE's
// float start/limit).
Status RequireConstantInput(KernelContext& ctx, int index, const std::string& what);

// `value` as a dimension: InvalidArgument when negative or past INT32_MAX.
StatusOr<int32_t> ToDimension(const KernelContext& ctx, int64_t value, const std::string& what);

// An op that only moves quantized bytes keeps the values' meaning only when
// both tensors share scale and zero point: Unsupported (requantization would
// be needed) when both are quantized and differ.
Status CheckSameQuantization(const KernelContext& ctx, const Tensor& in, const std::string& what_in, const Tensor& out,
                             const std::string& what_out);

}  // namespace relite::cpu
