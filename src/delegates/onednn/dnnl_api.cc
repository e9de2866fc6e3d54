#include "src/delegates/onednn/dnnl_api.h"

#include <dlfcn.h>

#include <cstdlib>
#include <vector>

#include <fmt/format.h>

namespace relite::onednn {
namespace {

struct Loaded {
  DnnlApi api;
  Status status;
};

Loaded Load() {
  Loaded out;
  std::vector<std::string> candidates;
  if (const char* env = std::getenv("RELITE_ONEDNN_LIBRARY"); env != nullptr && *env != '\0') {
    candidates.push_back(env);
  } else {
    candidates = {"libdnnl.so.2", "libdnnl.so"};
  }
  void* handle = nullptr;
  std::string errors;
  for (const std::string& name : candidates) {
    handle = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle != nullptr) {
      out.api.library = name;
      break;
    }
    const char* err = dlerror();
    errors += fmt::format("{}{}", errors.empty() ? "" : "; ", err != nullptr ? err : name + ": not found");
  }
  if (handle == nullptr) {
    out.status = UnavailableError("oneDNN could not be loaded (" + errors + "); install Debian's libdnnl2");
    return out;
  }
#define RELITE_DNNL_LOAD(name)                                                                         \
  out.api.name = reinterpret_cast<decltype(out.api.name)>(dlsym(handle, #name));                       \
  if (out.api.name == nullptr) {                                                                       \
    out.status = UnavailableError("the oneDNN library " + out.api.library + " lacks " #name            \
                                  " (oneDNN 2.6 or a later 2.x is required)");                         \
    return out;                                                                                        \
  }
  RELITE_DNNL_FUNCTIONS(RELITE_DNNL_LOAD)
#undef RELITE_DNNL_LOAD
  // The OpenMP runtime libdnnl was linked with is loaded by now: its thread
  // count is set per Invoke from the interpreter's.
  if (void* omp = dlopen("libgomp.so.1", RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD); omp != nullptr) {
    out.api.omp_set_num_threads = reinterpret_cast<void (*)(int)>(dlsym(omp, "omp_set_num_threads"));
  }
  // Left open for the life of the process: OpenMP's threads outlive any delegate.
  return out;
}

}  // namespace

StatusOr<const DnnlApi*> LoadDnnlApi() {
  static const Loaded loaded = Load();
  if (!loaded.status.ok()) return loaded.status;
  return &loaded.api;
}

std::string DnnlStatusName(dnnl_status_t status) {
  const char* name = "unknown status";
  switch (status) {
    case dnnl_success: name = "dnnl_success"; break;
    case dnnl_out_of_memory: name = "dnnl_out_of_memory"; break;
    case dnnl_invalid_arguments: name = "dnnl_invalid_arguments"; break;
    case dnnl_unimplemented: name = "dnnl_unimplemented"; break;
    case dnnl_iterator_ends: name = "dnnl_iterator_ends"; break;
    case dnnl_runtime_error: name = "dnnl_runtime_error"; break;
    case dnnl_not_required: name = "dnnl_not_required"; break;
    default: break;
  }
  return fmt::format("{} ({})", name, static_cast<int>(status));
}

std::string CpuIsaName(dnnl_cpu_isa_t isa) {
  switch (isa) {
    case dnnl_cpu_isa_all: return "all";
    case dnnl_cpu_isa_sse41: return "sse41";
    case dnnl_cpu_isa_avx: return "avx";
    case dnnl_cpu_isa_avx2: return "avx2";
    case dnnl_cpu_isa_avx512_mic: return "avx512_mic";
    case dnnl_cpu_isa_avx512_mic_4ops: return "avx512_mic_4ops";
    case dnnl_cpu_isa_avx512_core: return "avx512_core";
    case dnnl_cpu_isa_avx512_core_vnni: return "avx512_core_vnni";
    case dnnl_cpu_isa_avx512_core_bf16: return "avx512_core_bf16";
    case dnnl_cpu_isa_avx512_core_amx: return "avx512_core_amx";
    case dnnl_cpu_isa_avx2_vnni: return "avx2_vnni";
    default: return fmt::format("isa {:#x}", static_cast<unsigned>(isa));
  }
}

}  // namespace relite::onednn
