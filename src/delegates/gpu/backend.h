// What the GPU delegate needs from a compute API: buffers, programs compiled
// from the op templates plus the backend's prelude, bound launches on one
// in-order queue, and runs (one Invoke of a partition) replayed as a unit.
// OpenCL (cl/) and CUDA (cuda/, NVRTC and CUDA graphs) implement it.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "relite/status.h"
#include "src/delegates/gpu/cache/kernel_cache.h"
#include "src/delegates/gpu/gpu_program.h"

namespace relite::gpu {

struct DeviceInfo {
  std::string backend;      // "opencl", "cuda"
  std::string name;         // "NVIDIA H200"
  std::string vendor;
  std::string version;      // "OpenCL 3.0 CUDA"
  std::string driver;       // the driver's version string (CL_DRIVER_VERSION)
  std::string platform;     // "NVIDIA CUDA"
  bool is_gpu = false;
  bool has_fp16_arithmetic = false;  // cl_khr_fp16 (we use half storage either way)
  uint64_t global_memory = 0;
  int compute_units = 0;
  std::string Describe() const;  // "NVIDIA H200 (NVIDIA CUDA, OpenCL 3.0 CUDA, GPU)"
};

// One Invoke of a partition: the inputs copied to their staging buffers, the
// launches in order, the outputs copied back, one wait at the end.
struct RunPlan {
  struct Copy {
    int buffer = -1;
    size_t bytes = 0;
  };
  std::vector<Copy> inputs, outputs;
  std::vector<int> launches;
};

// A kernel argument after the partition resolved tensors to buffers.
struct BoundArg {
  enum class Kind : uint8_t { kBuffer, kInt, kFloat };
  Kind kind = Kind::kInt;
  int32_t buffer = -1;  // backend buffer id
  int32_t i = 0;
  float f = 0.f;
};

// Where initialisation time goes, summed over everything built so far.
struct BackendTimings {
  double context_ms = 0;     // context and queue creation
  double compile_ms = 0;     // programs compiled from source
  double cache_load_ms = 0;  // programs created from cached binaries
  double tuning_ms = 0;      // timing work-group candidates
  int programs_compiled = 0;
  int programs_from_cache = 0;
  int launches_tuned = 0;         // tuned now
  int launches_tuned_cached = 0;  // tuning read from the cache
  // How Runs moved their boundary tensors, summed over every Run: bytes
  // copied through staging memory (CUDA: the run's pinned buffers, a host
  // memcpy each way besides the transfer; OpenCL: the driver's, from the
  // caller's ordinary memory), and bytes transferred straight from or to the
  // caller's memory (page-locked memory of AllocateHost).
  uint64_t staged_bytes = 0;
  uint64_t direct_bytes = 0;
};

class Backend {
 public:
  virtual ~Backend() = default;
  virtual const DeviceInfo& device() const = 0;
  virtual Precision precision() const = 0;
  // Bytes of one GPU tensor element (float4 or half4) in this precision.
  size_t element4_bytes() const { return precision() == Precision::kFp16 ? 8 : 16; }

  virtual StatusOr<int> CreateBuffer(size_t bytes) = 0;
  virtual void ReleaseBuffer(int buffer) = 0;
  // Queued; `src` must stay valid until Finish unless `blocking`.
  virtual Status Write(int buffer, const void* src, size_t bytes, bool blocking) = 0;
  // Queued; `dst` is filled at Finish.
  virtual Status Read(int buffer, void* dst, size_t bytes) = 0;

  // Compiles launch.source (cached in memory by source and defines, and in
  // `cache` when given: program binaries and tuned work-group sizes) and
  // binds the arguments once; Enqueue then only queues it.
  virtual StatusOr<int> CreateLaunch(const KernelLaunch& launch, const std::vector<BoundArg>& args,
                                     CacheEntry* cache = nullptr) = 0;
  // With sustained speed, CreateLaunch times candidate work-group sizes on
  // the device (the launch's buffers exist by then) and keeps the fastest.
  virtual void SetTuning(bool sustained) = 0;
  virtual bool tuning() const = 0;
  // What compiled kernels depend on besides their source: backend, device,
  // vendor, driver, precision, the prelude, relite's version, tuning mode.
  virtual std::string CacheConfig() const = 0;
  virtual const BackendTimings& timings() const = 0;
  virtual void ReleaseLaunch(int launch) = 0;
  virtual Status Enqueue(int launch) = 0;
  // Waits for everything queued.
  virtual Status Finish() = 0;

  // Prepares `plan` (a backend may record it once, e.g. as a CUDA graph);
  // errors surface here, at build time, not at Run.
  virtual StatusOr<int> CreateRun(const RunPlan& plan) = 0;
  virtual void ReleaseRun(int run) = 0;
  // inputs[i] (plan.inputs[i].bytes bytes) in, outputs[i] out; returns when
  // the outputs are filled.
  virtual Status Run(int run, const std::vector<const void*>& inputs, const std::vector<void*>& outputs) = 0;

  // Page-locked host memory the device transfers to and from directly (a
  // Run whose inputs or outputs lie in it needs no staging copy), or nullptr
  // where the backend has none to give (OpenCL) or the allocation failed.
  // Freed by FreeHost, which must be called while the backend lives.
  virtual void* AllocateHost(size_t bytes) {
    (void)bytes;
    return nullptr;
  }
  virtual void FreeHost(void* p) { (void)p; }
  // Device memory held by this backend's buffers now, and at most so far.
  virtual size_t device_bytes() const = 0;
  virtual size_t peak_device_bytes() const = 0;
  // Programs compiled so far (for reports and tests).
  virtual int num_programs() const = 0;
};

}  // namespace relite::gpu
