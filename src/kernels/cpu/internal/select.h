// SELECT and SELECT_V2: out = condition ? x : y, elementwise.
//
// The two differ only in which shapes they accept (TFLite's rules):
//   SELECT     condition, x and y of one shape; or x and y of one shape and
//              the condition a scalar, or rank 1 with x's first dimension
//              (one choice per row).
//   SELECT_V2  numpy broadcasting of all three.
// Both become one strided plan over the output. The data are only copied,
// so every fixed-size type works the same (bool, float32, the integers,
// quantized int8/uint8 whose values pass through unchanged).
#pragma once

#include <memory>

#include "relite/kernel.h"

namespace relite::cpu {

enum class SelectShapes { kRankOneCondition, kBroadcast };

std::unique_ptr<Kernel> MakeSelectKernel(SelectShapes shapes);

}  // namespace relite::cpu
