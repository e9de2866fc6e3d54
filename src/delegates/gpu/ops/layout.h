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

// Whether the first bytes of a GPU tensor of `shape` are the model tensor's
// BHWC bytes already: float32 storage (fp32 precision) of a float32 tensor,
// and channels that follow each other across slices (one pixel per batch
// item, e.g. a classifier's [1,1001], with one batch item or whole slices;
// or exactly 4 channels). A boundary output of that kind is copied from its
// GPU buffer with no conversion launch.
bool GpuLayoutIsModelLayout(const GpuShape& shape, DataType type, const Quantization& quant, Precision precision);

}  // namespace relite::gpu
