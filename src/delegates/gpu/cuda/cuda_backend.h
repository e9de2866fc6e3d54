// The CUDA backend: one NVIDIA device (its primary context), one stream,
// programs compiled from the op templates by NVRTC to the device's own
// architecture (cubin), and each partition's run captured once as a CUDA
// graph and replayed per Invoke.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "src/delegates/gpu/backend.h"

namespace relite::gpu::cuda {

struct CudaDeviceChoice {
  int index = -1;    // CUDA device ordinal; -1: device 0
  std::string name;  // case-insensitive substring of the device name
};

// False when relite was built without the CUDA headers (no CUDA backend).
bool CudaBackendBuilt();

// Every CUDA device (Unavailable without a driver or GPU).
StatusOr<std::vector<DeviceInfo>> ListCudaDevices();

StatusOr<std::unique_ptr<Backend>> CreateCudaBackend(const CudaDeviceChoice& choice, Precision precision);

// The CUDA program text of a launch (its defines, the prelude, the template).
std::string CudaProgramText(const KernelLaunch& launch, Precision precision);

// Ok when NVRTC loads, else Unavailable with the loader's reason.
Status NvrtcStatus();

// Compiles a launch's program with NVRTC for `arch` ("sm_90") into a cubin;
// no device is needed (tests compile every template on machines without one).
// Errors carry NVRTC's log.
StatusOr<std::string> CompileCudaProgram(const KernelLaunch& launch, Precision precision, const std::string& arch);

}  // namespace relite::gpu::cuda
