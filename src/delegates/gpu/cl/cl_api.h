// The OpenCL entry points relite uses, loaded at run time with dlopen so that
// relite builds and runs where no OpenCL library is installed (the GPU
// delegate then reports itself unavailable with the loader's reason).
#pragma once

#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>

#include <string>

#include "relite/status.h"

namespace relite::gpu::cl {

#define RELITE_CL_FUNCTIONS(X)   \
  X(clGetPlatformIDs)            \
  X(clGetPlatformInfo)           \
  X(clGetDeviceIDs)              \
  X(clGetDeviceInfo)             \
  X(clCreateContext)             \
  X(clReleaseContext)            \
  X(clCreateCommandQueue)        \
  X(clReleaseCommandQueue)       \
  X(clCreateBuffer)              \
  X(clReleaseMemObject)          \
  X(clCreateProgramWithSource)   \
  X(clCreateProgramWithBinary)   \
  X(clBuildProgram)              \
  X(clGetProgramBuildInfo)       \
  X(clGetProgramInfo)            \
  X(clReleaseProgram)            \
  X(clCreateKernel)              \
  X(clReleaseKernel)             \
  X(clSetKernelArg)              \
  X(clGetKernelWorkGroupInfo)    \
  X(clEnqueueNDRangeKernel)      \
  X(clEnqueueWriteBuffer)        \
  X(clEnqueueReadBuffer)         \
  X(clEnqueueCopyBuffer)         \
  X(clEnqueueFillBuffer)         \
  X(clGetEventProfilingInfo)     \
  X(clWaitForEvents)             \
  X(clReleaseEvent)              \
  X(clFlush)                     \
  X(clFinish)

struct ClApi {
#define RELITE_CL_DECLARE(name) decltype(&::name) name = nullptr;
  RELITE_CL_FUNCTIONS(RELITE_CL_DECLARE)
#undef RELITE_CL_DECLARE
};

// The process-wide table, loaded once (thread-safe). Unavailable names the
// library paths tried and the dynamic loader's message, or the missing symbol.
StatusOr<const ClApi*> LoadClApi();

// "CL_OUT_OF_RESOURCES (-5)".
std::string ClErrorName(cl_int code);

}  // namespace relite::gpu::cl
