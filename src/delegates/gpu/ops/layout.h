// Conversions between the CPU's BHWC tensors and the GPU layout, run at
// partition boundaries only.
#pragma once

#include "relite/tensor.h"
#include "src/delegates/gpu/gpu_program.h"

namespace relite::gpu {

// `src` holds `type` values in BHWC order (float32, bool, or uint8/int8 with
// `quant`, dequantized on the way in); `dst` is a GPU tensor. The other way,
// 8-bit outputs are quantized (round half away from zero, saturated) on the
// GPU: the staging buffer then carries a quarter of the bytes.
KernelLaunch ToGpuLayout(const GpuShape& shape, const Quantization& quant, DataType type, KernelArg src, KernelArg dst);
KernelLaunch FromGpuLayout(const GpuShape& shape, const Quantization& quant, DataType type, KernelArg src, KernelArg dst);

}  // namespace relite::gpu
