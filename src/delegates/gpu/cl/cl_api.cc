#include "src/delegates/gpu/cl/cl_api.h"

#include <dlfcn.h>

#include <cstdlib>
#include <mutex>
#include <vector>

#include <fmt/format.h>

namespace relite::gpu::cl {
namespace {

struct Loaded {
  ClApi api;
  Status status;
};

Loaded Load() {
  Loaded out;
  // RELITE_OPENCL_LIBRARY overrides the search (a vendor library directly,
  // bypassing the ICD loader, or a test that wants none: "/nonexistent").
  std::vector<std::string> candidates;
  if (const char* env = std::getenv("RELITE_OPENCL_LIBRARY"); env != nullptr && *env != '\0') {
    candidates.push_back(env);
  } else {
    candidates = {"libOpenCL.so.1", "libOpenCL.so"};
  }
  void* handle = nullptr;
  std::string errors;
  for (const std::string& name : candidates) {
    handle = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle != nullptr) break;
    const char* err = dlerror();
    errors += fmt::format("{}{}", errors.empty() ? "" : "; ", err != nullptr ? err : name + ": not found");
  }
  if (handle == nullptr) {
    out.status = UnavailableError("no OpenCL library could be loaded (" + errors +
                                  "); install an OpenCL ICD loader and a driver, e.g. Debian's ocl-icd-libopencl1 "
                                  "and pocl-opencl-icd");
    return out;
  }
#define RELITE_CL_LOAD(name)                                                                                  \
  out.api.name = reinterpret_cast<decltype(out.api.name)>(dlsym(handle, #name));                              \
  if (out.api.name == nullptr) {                                                                              \
    out.status = UnavailableError("the OpenCL library lacks " #name " (OpenCL 1.2 is required)");             \
    return out;                                                                                               \
  }
  RELITE_CL_FUNCTIONS(RELITE_CL_LOAD)
#undef RELITE_CL_LOAD
  // The handle stays open for the life of the process: drivers register
  // atexit handlers and threads that outlive any delegate.
  return out;
}

}  // namespace

StatusOr<const ClApi*> LoadClApi() {
  static const Loaded loaded = Load();
  if (!loaded.status.ok()) return loaded.status;
  return &loaded.api;
}

std::string ClErrorName(cl_int code) {
  const char* name = "unknown OpenCL error";
  switch (code) {
#define RELITE_CL_ERR(x) \
  case x:                \
    name = #x;           \
    break;
    RELITE_CL_ERR(CL_DEVICE_NOT_FOUND)
    RELITE_CL_ERR(CL_DEVICE_NOT_AVAILABLE)
    RELITE_CL_ERR(CL_COMPILER_NOT_AVAILABLE)
    RELITE_CL_ERR(CL_MEM_OBJECT_ALLOCATION_FAILURE)
    RELITE_CL_ERR(CL_OUT_OF_RESOURCES)
    RELITE_CL_ERR(CL_OUT_OF_HOST_MEMORY)
    RELITE_CL_ERR(CL_PROFILING_INFO_NOT_AVAILABLE)
    RELITE_CL_ERR(CL_BUILD_PROGRAM_FAILURE)
    RELITE_CL_ERR(CL_INVALID_VALUE)
    RELITE_CL_ERR(CL_INVALID_DEVICE_TYPE)
    RELITE_CL_ERR(CL_INVALID_PLATFORM)
    RELITE_CL_ERR(CL_INVALID_DEVICE)
    RELITE_CL_ERR(CL_INVALID_CONTEXT)
    RELITE_CL_ERR(CL_INVALID_COMMAND_QUEUE)
    RELITE_CL_ERR(CL_INVALID_MEM_OBJECT)
    RELITE_CL_ERR(CL_INVALID_BINARY)
    RELITE_CL_ERR(CL_INVALID_BUILD_OPTIONS)
    RELITE_CL_ERR(CL_INVALID_PROGRAM)
    RELITE_CL_ERR(CL_INVALID_PROGRAM_EXECUTABLE)
    RELITE_CL_ERR(CL_INVALID_KERNEL_NAME)
    RELITE_CL_ERR(CL_INVALID_KERNEL)
    RELITE_CL_ERR(CL_INVALID_ARG_INDEX)
    RELITE_CL_ERR(CL_INVALID_ARG_VALUE)
    RELITE_CL_ERR(CL_INVALID_ARG_SIZE)
    RELITE_CL_ERR(CL_INVALID_KERNEL_ARGS)
    RELITE_CL_ERR(CL_INVALID_WORK_DIMENSION)
    RELITE_CL_ERR(CL_INVALID_WORK_GROUP_SIZE)
    RELITE_CL_ERR(CL_INVALID_WORK_ITEM_SIZE)
    RELITE_CL_ERR(CL_INVALID_GLOBAL_OFFSET)
    RELITE_CL_ERR(CL_INVALID_EVENT)
    RELITE_CL_ERR(CL_INVALID_OPERATION)
    RELITE_CL_ERR(CL_INVALID_BUFFER_SIZE)
    RELITE_CL_ERR(CL_INVALID_GLOBAL_WORK_SIZE)
#undef RELITE_CL_ERR
    default:
      break;
  }
  return fmt::format("{} ({})", name, code);
}

}  // namespace relite::gpu::cl
