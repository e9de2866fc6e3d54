// The CUDA driver API and NVRTC entry points relite uses, loaded at run time
// with dlopen (as OpenCL is), so one relite binary builds with the CUDA
// headers only and runs on machines without NVIDIA hardware: the CUDA
// backend then reports itself unavailable with the loader's reason.
#pragma once

#include <cuda.h>
#include <nvrtc.h>

#include <string>

#include "relite/status.h"

namespace relite::gpu::cuda {

// (member, the exported symbol: the versioned name cuda.h maps it to)
#define RELITE_CUDA_FUNCTIONS(X)                               \
  X(cuInit, "cuInit")                                          \
  X(cuDriverGetVersion, "cuDriverGetVersion")                  \
  X(cuDeviceGetCount, "cuDeviceGetCount")                      \
  X(cuDeviceGet, "cuDeviceGet")                                \
  X(cuDeviceGetName, "cuDeviceGetName")                        \
  X(cuDeviceGetAttribute, "cuDeviceGetAttribute")              \
  X(cuDeviceTotalMem, "cuDeviceTotalMem_v2")                   \
  X(cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain")      \
  X(cuDevicePrimaryCtxRelease, "cuDevicePrimaryCtxRelease_v2") \
  X(cuCtxPushCurrent, "cuCtxPushCurrent_v2")                   \
  X(cuCtxPopCurrent, "cuCtxPopCurrent_v2")                     \
  X(cuStreamCreate, "cuStreamCreate")                          \
  X(cuStreamDestroy, "cuStreamDestroy_v2")                     \
  X(cuStreamSynchronize, "cuStreamSynchronize")                \
  X(cuMemAlloc, "cuMemAlloc_v2")                               \
  X(cuMemFree, "cuMemFree_v2")                                 \
  X(cuMemAllocHost, "cuMemAllocHost_v2")                       \
  X(cuMemFreeHost, "cuMemFreeHost")                            \
  X(cuMemcpyHtoDAsync, "cuMemcpyHtoDAsync_v2")                 \
  X(cuMemcpyDtoHAsync, "cuMemcpyDtoHAsync_v2")                 \
  X(cuMemsetD8Async, "cuMemsetD8Async")                        \
  X(cuModuleLoadData, "cuModuleLoadData")                      \
  X(cuModuleUnload, "cuModuleUnload")                          \
  X(cuModuleGetFunction, "cuModuleGetFunction")                \
  X(cuFuncGetAttribute, "cuFuncGetAttribute")                  \
  X(cuLaunchKernel, "cuLaunchKernel")                          \
  X(cuLaunchKernelEx, "cuLaunchKernelEx")                      \
  X(cuStreamBeginCapture, "cuStreamBeginCapture_v2")           \
  X(cuStreamEndCapture, "cuStreamEndCapture")                  \
  X(cuGraphInstantiateWithFlags, "cuGraphInstantiateWithFlags") \
  X(cuGraphLaunch, "cuGraphLaunch")                            \
  X(cuGraphExecDestroy, "cuGraphExecDestroy")                  \
  X(cuGraphDestroy, "cuGraphDestroy")                          \
  X(cuEventCreate, "cuEventCreate")                            \
  X(cuEventRecord, "cuEventRecord")                            \
  X(cuEventSynchronize, "cuEventSynchronize")                  \
  X(cuEventElapsedTime, "cuEventElapsedTime_v2")               \
  X(cuEventDestroy, "cuEventDestroy_v2")                       \
  X(cuGetErrorName, "cuGetErrorName")

#define RELITE_NVRTC_FUNCTIONS(X)                          \
  X(nvrtcVersion, "nvrtcVersion")                          \
  X(nvrtcCreateProgram, "nvrtcCreateProgram")              \
  X(nvrtcDestroyProgram, "nvrtcDestroyProgram")            \
  X(nvrtcCompileProgram, "nvrtcCompileProgram")            \
  X(nvrtcGetProgramLogSize, "nvrtcGetProgramLogSize")      \
  X(nvrtcGetProgramLog, "nvrtcGetProgramLog")              \
  X(nvrtcGetCUBINSize, "nvrtcGetCUBINSize")                \
  X(nvrtcGetCUBIN, "nvrtcGetCUBIN")                        \
  X(nvrtcGetErrorString, "nvrtcGetErrorString")

struct CudaApi {
#define RELITE_CUDA_DECLARE(name, symbol) decltype(&::name) name = nullptr;
  RELITE_CUDA_FUNCTIONS(RELITE_CUDA_DECLARE)
#undef RELITE_CUDA_DECLARE
};

struct NvrtcApi {
#define RELITE_NVRTC_DECLARE(name, symbol) decltype(&::name) name = nullptr;
  RELITE_NVRTC_FUNCTIONS(RELITE_NVRTC_DECLARE)
#undef RELITE_NVRTC_DECLARE
  int major = 0, minor = 0;  // NVRTC's version
};

// The process-wide tables, loaded once (thread-safe). Unavailable names the
// libraries tried and the dynamic loader's message, or the missing symbol.
// RELITE_CUDA_LIBRARY and RELITE_NVRTC_LIBRARY override the names searched.
// LoadCudaApi also runs cuInit.
StatusOr<const CudaApi*> LoadCudaApi();
StatusOr<const NvrtcApi*> LoadNvrtcApi();

// "CUDA_ERROR_OUT_OF_MEMORY (2)".
std::string CudaErrorName(const CudaApi& api, CUresult code);

}  // namespace relite::gpu::cuda
