// Built instead of cuda/ when CMake found no CUDA headers (cuda.h, nvrtc.h):
// the CUDA backend is then absent and says so.
#include "src/delegates/gpu/cuda/cuda_backend.h"

namespace relite::gpu::cuda {

namespace {
Status Absent() {
  return UnavailableError("this relite was built without the CUDA headers (cuda.h, nvrtc.h), so it has no CUDA backend");
}
}  // namespace

bool CudaBackendBuilt() { return false; }
StatusOr<std::vector<DeviceInfo>> ListCudaDevices() { return Absent(); }
Status NvrtcStatus() { return Absent(); }
StatusOr<std::unique_ptr<Backend>> CreateCudaBackend(const CudaDeviceChoice&, Precision) { return Absent(); }
std::string CudaProgramText(const KernelLaunch&, Precision) { return {}; }
StatusOr<std::string> CompileCudaProgram(const KernelLaunch&, Precision, const std::string&) { return Absent(); }

}  // namespace relite::gpu::cuda
