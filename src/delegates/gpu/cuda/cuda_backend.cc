#include "src/delegates/gpu/cuda/cuda_backend.h"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <map>
#include <mutex>

#include <fmt/format.h>

#include "src/delegates/gpu/cuda/cuda_api.h"
#include "src/delegates/gpu/cuda/cuda_prelude.h"
#include "src/delegates/gpu/kernel_profile.h"
#include "src/delegates/gpu/kernel_source.h"
#include "src/delegates/gpu/launch_geometry.h"

namespace relite::gpu::cuda {
namespace {

constexpr const char* kReliteVersion = "0.1.0";
// -default-device: helper functions without __device__ are device code;
// fmad as OpenCL's -cl-mad-enable. (--gpu-architecture is added per device.)
constexpr const char* kNvrtcOptions[] = {"-default-device", "--fmad=true", "-std=c++17"};

std::string NvrtcOptionsText() {
  std::string s;
  for (const char* o : kNvrtcOptions) s += std::string(s.empty() ? "" : " ") + o;
  return s;
}

// The launch's defines, and RELITE_CUDA_MMA 0 where the environment asks
// for the kernels without tensor cores (RELITE_CUDA_MMA=0: A/B runs, or a
// way around a driver's tensor-core fault); part of the program key.
std::string CudaLaunchDefines(const KernelLaunch& launch, Precision precision) {
  std::string defines = LaunchDefines(launch, precision);
  if (const char* e = std::getenv("RELITE_CUDA_MMA"); e != nullptr && std::string(e) == "0") {
    defines += "#define RELITE_CUDA_MMA 0\n";
  }
  return defines;
}

// Programmatic dependent launch on sm_90+ (RELITE_CUDA_PDL=0 turns it off):
// every kernel starts by waiting for the grid before it
// (griddepcontrol.wait; a no-op without a dependency), and the launches of a
// run after its first are queued with programmatic stream serialization, so
// a kernel's launch overlaps the end of the one before. The trigger stays
// implicit (the grid before releases it as its blocks exit): an explicit
// trigger at the start placed the next grid's blocks early and unevenly and
// slowed the large models (docs/PERFORMANCE.md, sessions 19 and 22).
bool PdlRequested() {
  const char* e = std::getenv("RELITE_CUDA_PDL");
  return !(e != nullptr && std::string(e) == "0");
}

// The launch's source, with the grid wait as the first statement of its
// entry's body where PdlRequested(); *waits says whether it has it (only such
// a kernel may be launched with programmatic serialization).
std::string KernelSource(const KernelLaunch& launch, bool* waits = nullptr) {
  if (waits != nullptr) *waits = false;
  if (!PdlRequested()) return launch.source;
  const std::string& s = launch.source;
  const size_t name = s.find("KERNEL void " + launch.entry + "(");
  if (name == std::string::npos) return s;
  int depth = 0;
  size_t i = s.find('(', name);
  for (; i < s.size(); ++i) {
    if (s[i] == '(') ++depth;
    if (s[i] == ')' && --depth == 0) break;
  }
  const size_t brace = s.find('{', i);
  if (brace == std::string::npos) return s;
  if (waits != nullptr) *waits = true;
  return s.substr(0, brace + 1) + "\n#if __CUDA_ARCH__ >= 900\n  asm volatile(\"griddepcontrol.wait;\" ::: \"memory\");\n#endif\n" +
         s.substr(brace + 1);
}

double MsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

std::string Lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

Status CuError(const CudaApi& api, const std::string& what, CUresult code) {
  const std::string msg = fmt::format("CUDA: {} failed: {}", what, CudaErrorName(api, code));
  return code == CUDA_ERROR_OUT_OF_MEMORY ? Status(StatusCode::kUnavailable, msg) : InternalError(msg);
}

#define RELITE_CU(call, what)                                             \
  do {                                                                    \
    if (const CUresult relite_cu_err = (call); relite_cu_err != CUDA_SUCCESS) \
      return CuError(api_, (what), relite_cu_err);                        \
  } while (0)

struct FoundDevice {
  CUdevice device = 0;
  int ordinal = 0;
  int major = 0, minor = 0;  // compute capability
  DeviceInfo info;
};

StatusOr<std::vector<FoundDevice>> FindDevices(const CudaApi& api) {
  int count = 0;
  if (CUresult err = api.cuDeviceGetCount(&count); err != CUDA_SUCCESS) return CuError(api, "cuDeviceGetCount", err);
  if (count == 0) return UnavailableError("the CUDA driver reports no device");
  int driver = 0;
  api.cuDriverGetVersion(&driver);
  std::vector<FoundDevice> out;
  for (int i = 0; i < count; ++i) {
    FoundDevice f;
    f.ordinal = i;
    if (api.cuDeviceGet(&f.device, i) != CUDA_SUCCESS) continue;
    char name[256] = {};
    api.cuDeviceGetName(name, sizeof(name) - 1, f.device);
    api.cuDeviceGetAttribute(&f.major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, f.device);
    api.cuDeviceGetAttribute(&f.minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, f.device);
    int sms = 0;
    api.cuDeviceGetAttribute(&sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, f.device);
    size_t mem = 0;
    api.cuDeviceTotalMem(&mem, f.device);
    f.info.backend = "cuda";
    f.info.name = name;
    f.info.vendor = "NVIDIA";
    f.info.version = fmt::format("CUDA {}.{}, sm_{}{}", driver / 1000, driver % 1000 / 10, f.major, f.minor);
    f.info.driver = std::to_string(driver);
    f.info.platform = "NVIDIA CUDA";
    f.info.is_gpu = true;
    f.info.has_fp16_arithmetic = f.major >= 6;
    f.info.global_memory = mem;
    f.info.compute_units = sms;
    out.push_back(std::move(f));
  }
  if (out.empty()) return UnavailableError("no CUDA device could be opened");
  return out;
}

StatusOr<std::string> Compile(const NvrtcApi& nvrtc, const std::string& text, const std::string& entry, const std::string& arch,
                              const std::string& device) {
  nvrtcProgram program = nullptr;
  nvrtcResult r = nvrtc.nvrtcCreateProgram(&program, text.c_str(), (entry + ".cu").c_str(), 0, nullptr, nullptr);
  if (r != NVRTC_SUCCESS) return InternalError(fmt::format("NVRTC: creating kernel '{}' failed: {}", entry, nvrtc.nvrtcGetErrorString(r)));
  const std::string arch_option = "--gpu-architecture=" + arch;
  std::vector<const char*> options = {arch_option.c_str()};
  for (const char* o : kNvrtcOptions) options.push_back(o);
  r = nvrtc.nvrtcCompileProgram(program, static_cast<int>(options.size()), options.data());
  if (r != NVRTC_SUCCESS) {
    size_t n = 0;
    nvrtc.nvrtcGetProgramLogSize(program, &n);
    std::string log(n, '\0');
    if (n > 0) nvrtc.nvrtcGetProgramLog(program, log.data());
    while (!log.empty() && (log.back() == '\0' || log.back() == '\n')) log.pop_back();
    nvrtc.nvrtcDestroyProgram(&program);
    return InternalError(fmt::format("NVRTC: compiling kernel '{}' for {} ({}) failed: {}\n{}", entry, device, arch,
                                     nvrtc.nvrtcGetErrorString(r), log));
  }
  size_t size = 0;
  nvrtc.nvrtcGetCUBINSize(program, &size);
  std::string cubin(size, '\0');
  if (size == 0 || nvrtc.nvrtcGetCUBIN(program, cubin.data()) != NVRTC_SUCCESS) {
    nvrtc.nvrtcDestroyProgram(&program);
    return InternalError(fmt::format("NVRTC: kernel '{}' produced no cubin for {}", entry, arch));
  }
  nvrtc.nvrtcDestroyProgram(&program);
  return cubin;
}

class CudaBackend final : public Backend {
 public:
  CudaBackend(const CudaApi& api, const NvrtcApi& nvrtc, FoundDevice dev, Precision precision)
      : api_(api), nvrtc_(nvrtc), device_(dev.device), info_(std::move(dev.info)), precision_(precision),
        arch_(fmt::format("sm_{}{}", dev.major, dev.minor)) {}

  ~CudaBackend() override {
    if (context_ == nullptr) return;
    api_.cuCtxPushCurrent(context_);
    if (stream_ != nullptr) api_.cuStreamSynchronize(stream_);
    if (profiling_) {
      CollectProfile();
      profile_.Print(info_.name);
    }
    for (size_t r = 0; r < runs_.size(); ++r) DestroyRun(runs_[r]);
    for (auto& e : event_pool_) api_.cuEventDestroy(e);
    for (auto& [key, module] : modules_) api_.cuModuleUnload(module);
    for (const Buffer& b : buffers_) {
      if (b.ptr != 0) api_.cuMemFree(b.ptr);
    }
    if (stream_ != nullptr) api_.cuStreamDestroy(stream_);
    CUcontext popped = nullptr;
    api_.cuCtxPopCurrent(&popped);
    api_.cuDevicePrimaryCtxRelease(device_);
  }

  Status Init() {
    const auto start = std::chrono::steady_clock::now();
    RELITE_CU(api_.cuDevicePrimaryCtxRetain(&context_, device_), "cuDevicePrimaryCtxRetain on " + info_.name);
    Current current(*this);
    RELITE_CU(api_.cuStreamCreate(&stream_, CU_STREAM_NON_BLOCKING), "cuStreamCreate");
    profiling_ = GpuProfilingRequested();
    int major = 0;
    api_.cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, device_);
    pdl_ = PdlRequested() && major >= 9;
    for (auto [attr, d] : {std::pair{CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X, 0}, {CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y, 1},
                           {CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z, 2}}) {
      int v = 0;
      api_.cuDeviceGetAttribute(&v, attr, device_);
      max_block_[d] = static_cast<size_t>(std::max(v, 1));
    }
    for (auto [attr, d] : {std::pair{CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X, 0}, {CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y, 1},
                           {CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z, 2}}) {
      int v = 0;
      api_.cuDeviceGetAttribute(&v, attr, device_);
      max_grid_[d] = static_cast<size_t>(std::max(v, 1));
    }
    timings_.context_ms += MsSince(start);
    return Status::Ok();
  }

  const DeviceInfo& device() const override { return info_; }
  Precision precision() const override { return precision_; }
  int num_programs() const override { return static_cast<int>(modules_.size()); }
  void SetTuning(bool sustained) override { tuning_ = sustained; }
  bool tuning() const override { return tuning_; }
  const BackendTimings& timings() const override { return timings_; }
  size_t device_bytes() const override { return device_bytes_; }
  size_t peak_device_bytes() const override { return peak_device_bytes_; }

  std::string CacheConfig() const override {
    return fmt::format("relite {}; backend cuda; device {}; {}; driver {}; nvrtc {}.{}; precision {}; prelude {}; options {}; "
                       "tuning {}",
                       kReliteVersion, info_.name, info_.version, info_.driver, nvrtc_.major, nvrtc_.minor,
                       precision_ == Precision::kFp16 ? "fp16" : "fp32", ShortHash(kCudaPrelude), NvrtcOptionsText(),
                       tuning_ ? "sustained" : "heuristic");
  }

  StatusOr<int> CreateBuffer(size_t bytes) override {
    Current current(*this);
    CUdeviceptr ptr = 0;
    const size_t size = std::max<size_t>(bytes, 16);
    RELITE_CU(api_.cuMemAlloc(&ptr, size), fmt::format("cuMemAlloc of {} bytes on {}", size, info_.name));
    buffers_.push_back({ptr, size});
    device_bytes_ += size;
    peak_device_bytes_ = std::max(peak_device_bytes_, device_bytes_);
    return static_cast<int>(buffers_.size()) - 1;
  }

  void ReleaseBuffer(int buffer) override {
    if (buffer < 0 || buffer >= static_cast<int>(buffers_.size())) return;
    Buffer& b = buffers_[static_cast<size_t>(buffer)];
    if (b.ptr == 0) return;
    Current current(*this);
    api_.cuStreamSynchronize(stream_);
    api_.cuMemFree(b.ptr);
    device_bytes_ -= b.bytes;
    b = {};
  }

  Status Write(int buffer, const void* src, size_t bytes, bool blocking) override {
    if (bytes == 0) return Status::Ok();
    Current current(*this);
    RELITE_CU(api_.cuMemcpyHtoDAsync(buffers_.at(static_cast<size_t>(buffer)).ptr, src, bytes, stream_), "cuMemcpyHtoDAsync");
    if (blocking) RELITE_CU(api_.cuStreamSynchronize(stream_), "cuStreamSynchronize");
    return Status::Ok();
  }

  Status Read(int buffer, void* dst, size_t bytes) override {
    if (bytes == 0) return Status::Ok();
    Current current(*this);
    RELITE_CU(api_.cuMemcpyDtoHAsync(dst, buffers_.at(static_cast<size_t>(buffer)).ptr, bytes, stream_), "cuMemcpyDtoHAsync");
    return Status::Ok();
  }

  StatusOr<int> CreateLaunch(const KernelLaunch& launch, const std::vector<BoundArg>& args, CacheEntry* cache) override {
    Current current(*this);
    std::string defines = CudaLaunchDefines(launch, precision_);
    bool waits = false;
    const std::string source = KernelSource(launch, &waits);
    std::string key = defines + '\x01' + source;
    const std::string program_name = "cuda-cubin:" + ShortHash(key);
    auto it = modules_.find(key);
    if (it == modules_.end()) {
      CUmodule module = nullptr;
      if (const std::string* cubin = cache != nullptr ? cache->Find(program_name) : nullptr) {
        const auto start = std::chrono::steady_clock::now();
        if (api_.cuModuleLoadData(&module, cubin->data()) == CUDA_SUCCESS) {
          timings_.cache_load_ms += MsSince(start);
          ++timings_.programs_from_cache;
        } else {
          module = nullptr;  // the driver refused it: compile instead
        }
      }
      if (module == nullptr) {
        const auto start = std::chrono::steady_clock::now();
        RELITE_ASSIGN_OR_RETURN(std::string cubin,
                                Compile(nvrtc_, defines + kCudaPrelude + source, launch.entry, arch_, info_.name));
        RELITE_CU(api_.cuModuleLoadData(&module, cubin.data()), "cuModuleLoadData of kernel '" + launch.entry + "'");
        timings_.compile_ms += MsSince(start);
        ++timings_.programs_compiled;
        if (cache != nullptr) cache->Put(program_name, std::move(cubin));
      }
      it = modules_.emplace(std::move(key), module).first;
    }
    Launch l;
    l.name = fmt::format("{} [{}x{}x{}]", launch.entry, launch.global[0], launch.global[1], launch.global[2]);
    l.grid_wait = waits;
    RELITE_CU(api_.cuModuleGetFunction(&l.function, it->second, launch.entry.c_str()), "cuModuleGetFunction " + launch.entry);
    l.slots.resize(args.size());
    for (size_t i = 0; i < args.size(); ++i) {
      const BoundArg& a = args[i];
      Slot& s = l.slots[i];
      switch (a.kind) {
        case BoundArg::Kind::kBuffer: s.ptr = buffers_.at(static_cast<size_t>(a.buffer)).ptr; break;
        case BoundArg::Kind::kInt: s.i = a.i; break;
        case BoundArg::Kind::kFloat: s.f = a.f; break;
      }
    }
    int max_threads = 0;
    api_.cuFuncGetAttribute(&max_threads, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, l.function);
    WorkGroupLimits limits;
    limits.max_total = static_cast<size_t>(std::max(max_threads, 1));
    limits.max_item = {max_block_[0], max_block_[1], max_block_[2]};
    limits.is_gpu = true;
    RELITE_ASSIGN_OR_RETURN(l.geometry, ChooseGeometry(launch, limits, "CUDA", info_.name));
    if (tuning_ && launch.local[0] == 0) {
      const std::string tune_name = fmt::format("cuda-local:{}:{}x{}x{}", program_name, launch.global[0], launch.global[1],
                                                launch.global[2]);
      l.geometry = TunedGeometry(launch, limits, l.geometry, tune_name, cache, &timings_, [&] { return Tune(l, launch, limits); });
    }
    for (size_t d = 0; d < 3; ++d) {
      if (l.geometry.global[d] / l.geometry.local[d] > max_grid_[d]) {
        return UnavailableError(fmt::format("CUDA: kernel '{}' needs {} blocks along dimension {}, {} allows {}", l.name,
                                            l.geometry.global[d] / l.geometry.local[d], d, info_.name, max_grid_[d]));
      }
    }
    launches_.push_back(std::move(l));
    Launch& stored = launches_.back();
    for (Slot& s : stored.slots) stored.params.push_back(&s);
    return static_cast<int>(launches_.size()) - 1;
  }

  void ReleaseLaunch(int launch) override {
    if (launch >= 0 && launch < static_cast<int>(launches_.size())) launches_[static_cast<size_t>(launch)].function = nullptr;
  }

  Status Enqueue(int launch) override {
    Current current(*this);
    return EnqueueLaunch(launch, profiling_, /*after_kernel=*/false);
  }

  Status Finish() override {
    Current current(*this);
    RELITE_CU(api_.cuStreamSynchronize(stream_), "cuStreamSynchronize");
    if (profiling_) CollectProfile();
    return Status::Ok();
  }

  // The inputs' and outputs' staging buffers get pinned host copies, and the
  // whole run (copies in, every launch, copies out) is captured once as a
  // CUDA graph: an Invoke is then memcpy to pinned memory, one graph launch,
  // one synchronisation, memcpy back. Where the caller's inputs and outputs
  // are page-locked memory of AllocateHost (the interpreter's tensor arena),
  // Run captures a second graph that copies from and to them directly, and
  // replays it while they stay where they are. With RELITE_GPU_PROFILE=1 the
  // launches are queued one by one between events instead.
  StatusOr<int> CreateRun(const RunPlan& plan) override {
    Current current(*this);
    runs_.push_back({});
    RunState& run = runs_.back();
    run.plan = plan;
    for (const auto* side : {&plan.inputs, &plan.outputs}) {
      for (const RunPlan::Copy& c : *side) {
        void* host = nullptr;
        if (c.bytes > 0) RELITE_CU(api_.cuMemAllocHost(&host, c.bytes), fmt::format("cuMemAllocHost of {} bytes", c.bytes));
        (side == &plan.inputs ? run.pinned_in : run.pinned_out).push_back(host);
      }
    }
    if (profiling_) return static_cast<int>(runs_.size()) - 1;
    RELITE_RETURN_IF_ERROR(Capture(run, run.pinned_in, run.pinned_out, &run.staged));
    return static_cast<int>(runs_.size()) - 1;
  }

  void* AllocateHost(size_t bytes) override {
    Current current(*this);
    void* p = nullptr;
    if (api_.cuMemAllocHost(&p, std::max<size_t>(bytes, 1)) != CUDA_SUCCESS) return nullptr;
    std::lock_guard<std::mutex> lock(host_mutex_);
    host_blocks_[reinterpret_cast<uintptr_t>(p)] = bytes;
    return p;
  }

  void FreeHost(void* p) override {
    if (p == nullptr) return;
    {
      std::lock_guard<std::mutex> lock(host_mutex_);
      host_blocks_.erase(reinterpret_cast<uintptr_t>(p));
    }
    Current current(*this);
    api_.cuMemFreeHost(p);
  }

  void ReleaseRun(int run) override {
    if (run < 0 || run >= static_cast<int>(runs_.size())) return;
    Current current(*this);
    api_.cuStreamSynchronize(stream_);
    DestroyRun(runs_[static_cast<size_t>(run)]);
  }

  Status Run(int run_id, const std::vector<const void*>& inputs, const std::vector<void*>& outputs) override {
    Current current(*this);
    RunState& run = runs_.at(static_cast<size_t>(run_id));
    // Each copy's host side: the caller's memory where it is page-locked
    // memory of ours, else the staging buffer (and a memcpy).
    std::vector<void*> in_host(run.plan.inputs.size()), out_host(run.plan.outputs.size());
    for (size_t i = 0; i < in_host.size(); ++i) {
      const size_t bytes = run.plan.inputs[i].bytes;
      const bool direct = bytes > 0 && IsHostMemory(inputs[i], bytes);
      in_host[i] = direct ? const_cast<void*>(inputs[i]) : run.pinned_in[i];
      (direct ? timings_.direct_bytes : timings_.staged_bytes) += bytes;
      if (!direct) std::memcpy(run.pinned_in[i], inputs[i], bytes);
    }
    for (size_t i = 0; i < out_host.size(); ++i) {
      const size_t bytes = run.plan.outputs[i].bytes;
      const bool direct = bytes > 0 && IsHostMemory(outputs[i], bytes);
      out_host[i] = direct ? outputs[i] : run.pinned_out[i];
      (direct ? timings_.direct_bytes : timings_.staged_bytes) += bytes;
    }
    if (run.staged.exec != nullptr) {
      Graph* graph = &run.staged;
      if (in_host != run.staged.in || out_host != run.staged.out) {
        // Captured again only when the caller's memory moves (the arena is
        // reallocated after a resize).
        if (in_host != run.direct.in || out_host != run.direct.out) {
          DestroyGraph(run.direct);
          RELITE_RETURN_IF_ERROR(Capture(run, in_host, out_host, &run.direct));
        }
        graph = &run.direct;
      }
      RELITE_CU(api_.cuGraphLaunch(graph->exec, stream_), "cuGraphLaunch");
      RELITE_CU(api_.cuStreamSynchronize(stream_), "cuStreamSynchronize");
    } else {
      RELITE_RETURN_IF_ERROR(QueueRun(run, in_host, out_host, profiling_));
      RELITE_RETURN_IF_ERROR(Finish());
    }
    for (size_t i = 0; i < run.plan.outputs.size(); ++i) {
      if (out_host[i] != outputs[i]) std::memcpy(outputs[i], run.pinned_out[i], run.plan.outputs[i].bytes);
    }
    return Status::Ok();
  }

 private:
  // The backend's context current on the calling thread for a scope (the
  // interpreter may call from any thread).
  class Current {
   public:
    explicit Current(const CudaBackend& b) : api_(b.api_) { api_.cuCtxPushCurrent(b.context_); }
    ~Current() {
      CUcontext popped = nullptr;
      api_.cuCtxPopCurrent(&popped);
    }
    Current(const Current&) = delete;
    Current& operator=(const Current&) = delete;

   private:
    const CudaApi& api_;
  };

  struct Buffer {
    CUdeviceptr ptr = 0;
    size_t bytes = 0;
  };
  union Slot {
    CUdeviceptr ptr;
    int32_t i;
    float f;
  };
  struct Launch {
    std::string name;  // entry and grid, for messages and the profile
    CUfunction function = nullptr;
    LaunchGeometry geometry;
    std::vector<Slot> slots;    // argument values
    std::vector<void*> params;  // &slots[i], as cuLaunchKernel takes them
    bool grid_wait = false;     // its program begins with griddepcontrol.wait
  };
  // A run captured with the copies' host sides at `in` and `out`.
  struct Graph {
    CUgraph graph = nullptr;
    CUgraphExec exec = nullptr;
    std::vector<void*> in, out;
  };
  struct RunState {
    RunPlan plan;
    std::vector<void*> pinned_in, pinned_out;
    Graph staged;  // through pinned_in / pinned_out
    Graph direct;  // from and to the caller's page-locked memory, once seen
  };

  void DestroyGraph(Graph& g) {
    if (g.exec != nullptr) api_.cuGraphExecDestroy(g.exec);
    if (g.graph != nullptr) api_.cuGraphDestroy(g.graph);
    g = Graph();
  }

  Status Capture(const RunState& run, const std::vector<void*>& in, const std::vector<void*>& out, Graph* g) {
    RELITE_CU(api_.cuStreamSynchronize(stream_), "cuStreamSynchronize");
    RELITE_CU(api_.cuStreamBeginCapture(stream_, CU_STREAM_CAPTURE_MODE_THREAD_LOCAL), "cuStreamBeginCapture");
    Status queued = QueueRun(run, in, out, /*profile=*/false);
    CUgraph graph = nullptr;
    const CUresult ended = api_.cuStreamEndCapture(stream_, &graph);
    if (!queued.ok()) {
      if (graph != nullptr) api_.cuGraphDestroy(graph);
      return queued.WithContext("capturing the CUDA graph");
    }
    if (ended != CUDA_SUCCESS) return CuError(api_, "cuStreamEndCapture", ended);
    CUgraphExec exec = nullptr;
    if (const CUresult err = api_.cuGraphInstantiateWithFlags(&exec, graph, 0); err != CUDA_SUCCESS) {
      api_.cuGraphDestroy(graph);
      return CuError(api_, fmt::format("cuGraphInstantiate of {} launches", run.plan.launches.size()), err);
    }
    *g = {graph, exec, in, out};
    return Status::Ok();
  }

  // Whether [p, p + bytes) lies in one block of AllocateHost.
  bool IsHostMemory(const void* p, size_t bytes) const {
    const auto at = reinterpret_cast<uintptr_t>(p);
    std::lock_guard<std::mutex> lock(host_mutex_);
    auto it = host_blocks_.upper_bound(at);
    if (it == host_blocks_.begin()) return false;
    --it;
    return at >= it->first && at - it->first <= it->second && bytes <= it->second - (at - it->first);
  }

  void DestroyRun(RunState& run) {
    DestroyGraph(run.staged);
    DestroyGraph(run.direct);
    for (void* p : run.pinned_in) {
      if (p != nullptr) api_.cuMemFreeHost(p);
    }
    for (void* p : run.pinned_out) {
      if (p != nullptr) api_.cuMemFreeHost(p);
    }
    run = RunState();
  }

  Status QueueRun(const RunState& run, const std::vector<void*>& in, const std::vector<void*>& out, bool profile) {
    for (size_t i = 0; i < run.plan.inputs.size(); ++i) {
      const RunPlan::Copy& c = run.plan.inputs[i];
      if (c.bytes == 0) continue;
      RELITE_CU(api_.cuMemcpyHtoDAsync(buffers_.at(static_cast<size_t>(c.buffer)).ptr, in[i], c.bytes, stream_),
                "cuMemcpyHtoDAsync of a partition input");
    }
    for (size_t k = 0; k < run.plan.launches.size(); ++k) {
      RELITE_RETURN_IF_ERROR(EnqueueLaunch(run.plan.launches[k], profile, /*after_kernel=*/k > 0));
    }
    for (size_t i = 0; i < run.plan.outputs.size(); ++i) {
      const RunPlan::Copy& c = run.plan.outputs[i];
      if (c.bytes == 0) continue;
      RELITE_CU(api_.cuMemcpyDtoHAsync(out[i], buffers_.at(static_cast<size_t>(c.buffer)).ptr, c.bytes, stream_),
                "cuMemcpyDtoHAsync of a partition output");
    }
    return Status::Ok();
  }

  Status EnqueueLaunch(int launch, bool profile, bool after_kernel) {
    Launch& l = launches_.at(static_cast<size_t>(launch));
    CUevent begin = nullptr, end = nullptr;
    if (profile) {
      RELITE_ASSIGN_OR_RETURN(begin, TakeEvent());
      RELITE_ASSIGN_OR_RETURN(end, TakeEvent());
      api_.cuEventRecord(begin, stream_);
    }
    const LaunchGeometry& g = l.geometry;
    CUresult err = CUDA_SUCCESS;
    if (pdl_ && l.grid_wait && after_kernel && !profile) {
      CUlaunchAttribute attr = {};
      attr.id = CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION;
      attr.value.programmaticStreamSerializationAllowed = 1;
      CUlaunchConfig config = {};
      config.gridDimX = static_cast<unsigned>(g.global[0] / g.local[0]);
      config.gridDimY = static_cast<unsigned>(g.global[1] / g.local[1]);
      config.gridDimZ = static_cast<unsigned>(g.global[2] / g.local[2]);
      config.blockDimX = static_cast<unsigned>(g.local[0]);
      config.blockDimY = static_cast<unsigned>(g.local[1]);
      config.blockDimZ = static_cast<unsigned>(g.local[2]);
      config.hStream = stream_;
      config.attrs = &attr;
      config.numAttrs = 1;
      err = api_.cuLaunchKernelEx(&config, l.function, l.params.data(), nullptr);
    } else {
      err = api_.cuLaunchKernel(l.function, static_cast<unsigned>(g.global[0] / g.local[0]),
                                static_cast<unsigned>(g.global[1] / g.local[1]), static_cast<unsigned>(g.global[2] / g.local[2]),
                                static_cast<unsigned>(g.local[0]), static_cast<unsigned>(g.local[1]),
                                static_cast<unsigned>(g.local[2]), 0, stream_, l.params.data(), nullptr);
    }
    if (err != CUDA_SUCCESS) return CuError(api_, "cuLaunchKernel " + l.name, err);
    if (profile) {
      api_.cuEventRecord(end, stream_);
      pending_.push_back({launch, begin, end});
    }
    return Status::Ok();
  }

  StatusOr<CUevent> TakeEvent() {
    if (!event_pool_.empty()) {
      CUevent e = event_pool_.back();
      event_pool_.pop_back();
      return e;
    }
    CUevent e = nullptr;
    RELITE_CU(api_.cuEventCreate(&e, CU_EVENT_DEFAULT), "cuEventCreate");
    return e;
  }

  void CollectProfile() {
    for (const Pending& p : pending_) {
      float ms = 0.f;
      api_.cuEventSynchronize(p.end);
      if (api_.cuEventElapsedTime(&ms, p.begin, p.end) == CUDA_SUCCESS) {
        profile_.Add(launches_[static_cast<size_t>(p.launch)].name, static_cast<double>(ms) * 1e6);
      }
      event_pool_.push_back(p.begin);
      event_pool_.push_back(p.end);
    }
    pending_.clear();
  }

  // Times each candidate block shape (a few runs after a warm-up) and returns
  // the fastest; ties keep the heuristic's.
  Dims3 Tune(const Launch& l, const KernelLaunch& launch, const WorkGroupLimits& limits) {
    Dims3 best = l.geometry.local;
    double best_us = std::numeric_limits<double>::infinity();
    for (const Dims3& c : TuningCandidates(launch, limits, l.geometry.local)) {
      const LaunchGeometry g = GeometryWithLocal(launch, c);
      bool fits = true;
      for (size_t d = 0; d < 3; ++d) fits = fits && g.global[d] / g.local[d] <= max_grid_[d];
      if (!fits) continue;
      auto launch_once = [&] {
        return api_.cuLaunchKernel(l.function, static_cast<unsigned>(g.global[0] / c[0]), static_cast<unsigned>(g.global[1] / c[1]),
                                   static_cast<unsigned>(g.global[2] / c[2]), static_cast<unsigned>(c[0]),
                                   static_cast<unsigned>(c[1]), static_cast<unsigned>(c[2]), 0, stream_,
                                   const_cast<void**>(l.params.data()), nullptr);
      };
      if (launch_once() != CUDA_SUCCESS || api_.cuStreamSynchronize(stream_) != CUDA_SUCCESS) continue;
      constexpr int kRuns = 5;
      const auto start = std::chrono::steady_clock::now();
      for (int r = 0; r < kRuns; ++r) launch_once();
      api_.cuStreamSynchronize(stream_);
      const double us = MsSince(start) * 1e3 / kRuns;
      if (us < best_us * 0.97) {
        best_us = us;
        best = c;
      }
    }
    return best;
  }

  struct Pending {
    int launch;
    CUevent begin, end;
  };

  const CudaApi& api_;
  const NvrtcApi& nvrtc_;
  CUdevice device_;
  DeviceInfo info_;
  Precision precision_;
  std::string arch_;
  CUcontext context_ = nullptr;
  CUstream stream_ = nullptr;
  size_t max_block_[3] = {1024, 1024, 64};
  size_t max_grid_[3] = {2147483647, 65535, 65535};
  std::vector<Buffer> buffers_;
  std::vector<Launch> launches_;
  std::vector<RunState> runs_;
  std::map<std::string, CUmodule> modules_;
  bool profiling_ = false;
  bool tuning_ = false;
  BackendTimings timings_;
  bool pdl_ = false;  // PdlRequested() on sm_90+
  // Blocks of AllocateHost by address (the interpreter may free one from
  // another thread than Run's).
  mutable std::mutex host_mutex_;
  std::map<uintptr_t, size_t> host_blocks_;
  KernelProfile profile_;
  std::vector<Pending> pending_;
  std::vector<CUevent> event_pool_;
  size_t device_bytes_ = 0, peak_device_bytes_ = 0;
};

}  // namespace

bool CudaBackendBuilt() { return true; }

Status NvrtcStatus() { return LoadNvrtcApi().status(); }

std::string CudaProgramText(const KernelLaunch& launch, Precision precision) {
  return CudaLaunchDefines(launch, precision) + kCudaPrelude + KernelSource(launch);
}

StatusOr<std::string> CompileCudaProgram(const KernelLaunch& launch, Precision precision, const std::string& arch) {
  RELITE_ASSIGN_OR_RETURN(const NvrtcApi* nvrtc, LoadNvrtcApi());
  return Compile(*nvrtc, CudaProgramText(launch, precision), launch.entry, arch, arch);
}

StatusOr<std::vector<DeviceInfo>> ListCudaDevices() {
  RELITE_ASSIGN_OR_RETURN(const CudaApi* api, LoadCudaApi());
  RELITE_ASSIGN_OR_RETURN(std::vector<FoundDevice> found, FindDevices(*api));
  std::vector<DeviceInfo> out;
  for (auto& f : found) out.push_back(f.info);
  return out;
}

StatusOr<std::unique_ptr<Backend>> CreateCudaBackend(const CudaDeviceChoice& choice, Precision precision) {
  RELITE_ASSIGN_OR_RETURN(const CudaApi* api, LoadCudaApi());
  RELITE_ASSIGN_OR_RETURN(std::vector<FoundDevice> found, FindDevices(*api));
  RELITE_ASSIGN_OR_RETURN(const NvrtcApi* nvrtc, LoadNvrtcApi());
  std::string names;
  for (size_t i = 0; i < found.size(); ++i) names += fmt::format("{}#{} {}", i ? ", " : "", i, found[i].info.Describe());
  int pick = 0;
  if (choice.index >= 0) {
    if (choice.index >= static_cast<int>(found.size())) {
      return NotFoundError(fmt::format("CUDA device index {} does not exist (devices: {})", choice.index, names));
    }
    pick = choice.index;
  } else if (!choice.name.empty()) {
    pick = -1;
    for (size_t i = 0; i < found.size() && pick < 0; ++i) {
      if (Lower(found[i].info.name + " " + found[i].info.platform).find(Lower(choice.name)) != std::string::npos) {
        pick = static_cast<int>(i);
      }
    }
    if (pick < 0) return NotFoundError(fmt::format("no CUDA device matches '{}' (devices: {})", choice.name, names));
  }
  auto backend = std::make_unique<CudaBackend>(*api, *nvrtc, std::move(found[static_cast<size_t>(pick)]), precision);
  RELITE_RETURN_IF_ERROR(backend->Init());
  return std::unique_ptr<Backend>(std::move(backend));
}

}  // namespace relite::gpu::cuda
