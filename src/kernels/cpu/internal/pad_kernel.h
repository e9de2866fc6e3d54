// The kernel behind PAD and PADV2: PADV2 is PAD with an explicit scalar
// constant (input 2); without it PAD fills with zero, or with the output's
// zero point for quantized tensors.
#pragma once

#include <memory>

#include "relite/kernel.h"

namespace relite::cpu {

std::unique_ptr<Kernel> MakePadKernel();

}  // namespace relite::cpu
