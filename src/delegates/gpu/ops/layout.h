// Conversions between the CPU's BHWC tensors and the GPU layout, run at
// partition boundaries only.
#pragma once

#include "src/delegates/gpu/gpu_program.h"

namespace relite::gpu {

// `src` holds `type` (float32 or bool) values in BHWC order; `dst` is a GPU tensor.
KernelLaunch ToGpuLayout(const GpuShape& shape, DataType type, KernelArg src, KernelArg dst);
KernelLaunch FromGpuLayout(const GpuShape& shape, DataType type, KernelArg src, KernelArg dst);

}  // namespace relite::gpu
