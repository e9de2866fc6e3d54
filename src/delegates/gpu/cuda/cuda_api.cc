#include "src/delegates/gpu/cuda/cuda_api.h"

#include <dlfcn.h>

#include <cstdlib>
#include <vector>

#include <fmt/format.h>

namespace relite::gpu::cuda {
namespace {

// dlopen of the first library that loads: `env` overrides `defaults`.
void* OpenFirst(const char* env, const std::vector<std::string>& defaults, std::string* errors) {
  std::vector<std::string> candidates;
  if (const char* e = std::getenv(env); e != nullptr && *e != '\0') {
    candidates.push_back(e);
  } else {
    candidates = defaults;
  }
  for (const std::string& name : candidates) {
    if (void* handle = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL)) return handle;
    const char* err = dlerror();
    *errors += fmt::format("{}{}", errors->empty() ? "" : "; ", err != nullptr ? err : name + ": not found");
  }
  return nullptr;
}

struct LoadedCuda {
  CudaApi api;
  Status status;
};

LoadedCuda LoadCuda() {
  LoadedCuda out;
  std::string errors;
  // The handle stays open for the life of the process, as the driver expects.
  void* handle = OpenFirst("RELITE_CUDA_LIBRARY", {"libcuda.so.1", "libcuda.so"}, &errors);
  if (handle == nullptr) {
    out.status = UnavailableError("the CUDA driver library could not be loaded (" + errors +
                                  "); the CUDA backend needs an NVIDIA GPU and its driver");
    return out;
  }
#define RELITE_CUDA_LOAD(name, symbol)                                                               \
  out.api.name = reinterpret_cast<decltype(out.api.name)>(dlsym(handle, symbol));                    \
  if (out.api.name == nullptr) {                                                                     \
    out.status = UnavailableError("the CUDA driver library lacks " symbol " (driver too old for CUDA 12)"); \
    return out;                                                                                      \
  }
  RELITE_CUDA_FUNCTIONS(RELITE_CUDA_LOAD)
#undef RELITE_CUDA_LOAD
  const CUresult err = out.api.cuInit(0);
  if (err != CUDA_SUCCESS) {
    out.status = UnavailableError("cuInit failed: " + CudaErrorName(out.api, err) + " (no usable NVIDIA GPU or driver)");
  }
  return out;
}

struct LoadedNvrtc {
  NvrtcApi api;
  Status status;
};

LoadedNvrtc LoadNvrtc() {
  LoadedNvrtc out;
  std::string errors;
  void* handle = OpenFirst("RELITE_NVRTC_LIBRARY",
                           {"libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so", "/usr/local/cuda/lib64/libnvrtc.so.13",
                            "/usr/local/cuda/lib64/libnvrtc.so.12", "/usr/local/cuda/lib64/libnvrtc.so"},
                           &errors);
  if (handle == nullptr) {
    out.status = UnavailableError("NVRTC (the CUDA runtime compiler) could not be loaded (" + errors +
                                  "); install the CUDA toolkit's libnvrtc or set RELITE_NVRTC_LIBRARY");
    return out;
  }
#define RELITE_NVRTC_LOAD(name, symbol)                                                \
  out.api.name = reinterpret_cast<decltype(out.api.name)>(dlsym(handle, symbol));      \
  if (out.api.name == nullptr) {                                                       \
    out.status = UnavailableError("the NVRTC library lacks " symbol);                  \
    return out;                                                                        \
  }
  RELITE_NVRTC_FUNCTIONS(RELITE_NVRTC_LOAD)
#undef RELITE_NVRTC_LOAD
  out.api.nvrtcVersion(&out.api.major, &out.api.minor);
  return out;
}

}  // namespace

StatusOr<const CudaApi*> LoadCudaApi() {
  static const LoadedCuda loaded = LoadCuda();
  if (!loaded.status.ok()) return loaded.status;
  return &loaded.api;
}

StatusOr<const NvrtcApi*> LoadNvrtcApi() {
  static const LoadedNvrtc loaded = LoadNvrtc();
  if (!loaded.status.ok()) return loaded.status;
  return &loaded.api;
}

std::string CudaErrorName(const CudaApi& api, CUresult code) {
  const char* name = nullptr;
  if (api.cuGetErrorName == nullptr || api.cuGetErrorName(code, &name) != CUDA_SUCCESS || name == nullptr) name = "CUDA error";
  return fmt::format("{} ({})", name, static_cast<int>(code));
}

}  // namespace relite::gpu::cuda
