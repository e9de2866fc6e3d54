// The GPU delegate: runs the float ops of a model on a GPU, through CUDA on
// NVIDIA GPUs (kernels compiled by NVRTC, each partition replayed as one CUDA
// graph) or through OpenCL (any OpenCL 1.2 device: NVIDIA/AMD/Intel/Mali
// GPUs, or PoCL on a CPU).
//
//   relite::GpuDelegateOptions options;                // fp32, first GPU
//   options.precision = relite::GpuPrecision::kFp16;   // allow precision loss
//   auto gpu = relite::CreateGpuDelegate(options);     // error value when unavailable
//   if (!gpu.ok()) { /* e.g. no OpenCL library: run on the CPU */ }
//   auto interp = relite::InterpreterBuilder(*model, resolver).AddDelegate(gpu->get()).Build();
//
// The OpenCL library, the CUDA driver (libcuda.so.1) and NVRTC are loaded at
// run time (dlopen), so relite builds and runs where none is installed;
// CreateGpuDelegate then returns Unavailable with the reason.
// RELITE_OPENCL_LIBRARY, RELITE_CUDA_LIBRARY and RELITE_NVRTC_LIBRARY
// override the libraries searched for.
// The delegate must outlive the interpreters it was applied to.
#pragma once

#include "relite/export.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "relite/delegate.h"
#include "relite/status.h"

namespace relite {

enum class GpuPrecision : uint8_t {
  kFp32,  // float storage and arithmetic
  kFp16,  // half storage (vload_half/vstore_half), float arithmetic and accumulation
};

enum class GpuBackend : uint8_t {
  kAuto,    // CUDA when the CUDA driver loads and has a device, else OpenCL
  kOpenCl,
  kCuda,
};
// "auto", "opencl", "cuda".
RELITE_API const char* GpuBackendName(GpuBackend backend);
// Parses a GpuBackendName; false for anything else.
RELITE_API bool ParseGpuBackend(const std::string& name, GpuBackend* backend);

enum class GpuInferencePreference : uint8_t {
  kFastSingleAnswer,  // one answer soon: least initialisation work (heuristic work-group sizes)
  kSustainedSpeed,    // many inferences: each kernel's work-group size is tuned on the device at build
};

// Bits of GpuDelegateOptions::experimental_flags.
enum GpuExperimentalFlags : uint64_t {
  kGpuExperimentalNone = 0,
  kGpuExperimentalQuantizedModels = 1u << 0,  // 8-bit models on the GPU (on by default, as TFLite's ENABLE_QUANT)
  kGpuExperimentalSerialization = 1u << 1,    // on-disk cache of compiled kernels (serialization_dir)
};

struct GpuDelegateOptions {
  // kAuto also honours RELITE_GPU_BACKEND=opencl|cuda (tests and benchmarks
  // pick a backend without code changes); an explicit choice ignores it.
  GpuBackend backend = GpuBackend::kAuto;
  GpuPrecision precision = GpuPrecision::kFp32;
  GpuInferencePreference inference_preference = GpuInferencePreference::kFastSingleAnswer;
  // Partitions handed to the GPU, largest estimated work first; 0: all.
  int max_delegated_partitions = 0;
  int min_nodes_per_partition = 1;
  // kGpuExperimentalQuantizedModels is set by default: 8-bit tensors run on
  // the GPU in float, their weights dequantized once and every quantized
  // output kept on its grid by a fake-quant epilogue (docs/GPU_DELEGATE.md).
  // Clear it to keep 8-bit nodes on the CPU.
  uint64_t experimental_flags = kGpuExperimentalQuantizedModels;
  // Device, among the chosen backend's devices: by index (OpenCL: into
  // ListGpuDevices()'s OpenCL devices; CUDA: the device ordinal), else by a
  // case-insensitive substring of the device or platform name, else the
  // first GPU, else the first OpenCL device (e.g. PoCL's CPU device).
  int device_index = -1;
  std::string device_name;
  // kGpuExperimentalSerialization: compiled kernels (and tuned work-group
  // sizes) are kept in serialization_dir, created 0700 (a directory other
  // users can write is refused with a warning), one entry per model and
  // configuration. model_token names the model's entries; when empty, a
  // 128-bit hash of the model's bytes does. Entries are checked against the
  // model's bytes, relite's version, the device and driver, the precision
  // and the options that change kernels, so none is ever loaded for the
  // wrong thing. A problem with the directory is a warning, never an error.
  std::string serialization_dir;
  std::string model_token;
  // Bound on the directory (least recently used entries are removed); 0: none.
  uint64_t serialization_max_bytes = uint64_t{512} << 20;
  // CUDA: the interpreter's tensor arena (the CPU memory of the tensors a
  // partition reads and writes) is allocated in page-locked host memory, up
  // to 1 GiB, so each Invoke transfers them to and from the GPU directly
  // instead of through staging buffers (a host copy each way less). False,
  // or RELITE_GPU_PINNED_ARENA=0 in the environment: ordinary memory and
  // staging copies. No effect on OpenCL.
  bool pinned_tensor_arena = true;
  // Called while kSustainedSpeed tuning runs: (launches done, launches in the partition).
  std::function<void(int done, int total)> tuning_progress;
};

// The delegate, or an error value: Unavailable (no OpenCL library, no
// platform or device), NotFound (no device matches the choice),
// Unimplemented (a reserved experimental flag is set).
RELITE_API StatusOr<std::unique_ptr<Delegate>> CreateGpuDelegate(const GpuDelegateOptions& options = {});

// "#0 NVIDIA H200 (NVIDIA CUDA, OpenCL 3.0 CUDA, GPU)", one per OpenCL
// device, then "cuda#0 NVIDIA H200 (NVIDIA CUDA, CUDA 13.0, sm_90, GPU)", one
// per CUDA device. An error only when neither API has a device.
RELITE_API StatusOr<std::vector<std::string>> ListGpuDevices();

// Removes every cache entry relite wrote under `dir` (a serialization_dir).
RELITE_API Status ClearGpuDelegateCache(const std::string& dir, int* removed = nullptr);

// The device a GPU delegate created by CreateGpuDelegate runs on, described
// as ListGpuDevices does; empty for any other delegate.
RELITE_API std::string GpuDelegateDevice(const Delegate& delegate);
// The backend it runs on: "opencl" or "cuda"; empty for any other delegate.
RELITE_API std::string GpuDelegateBackend(const Delegate& delegate);

// What a GPU delegate built, summed over the interpreters it was applied to.
// A partition's time on a GPU is dominated by its kernel count.
struct GpuDelegateStats {
  int partitions = 0;
  int nodes = 0;          // model nodes in those partitions
  int kernels = 0;        // launches per Invoke, boundary conversions included
  int folded_clamps = 0;  // RELU-style nodes folded into their producer
  int folded_adds = 0;    // ADD nodes folded into the convolution producing an operand
  int folded_reshapes = 0;  // RESHAPE nodes that keep the GPU layout: their readers read the input
  int folded_pads = 0;      // channel PADs of a folded ADD's operand: read as zeros past the input
  int folded_pools = 0;     // 2x2 MAX_POOL_2Ds of a folded ADD's operand: maxima taken by the reader
  int folded_unaries = 0;   // LOGISTIC, HARD_SWISH, TANH, EXP nodes applied by their producer
  // Initialisation, in parts (ms): the OpenCL context, programs compiled
  // from source, programs loaded from cached binaries, work-group tuning,
  // weight upload.
  double context_ms = 0, compile_ms = 0, cache_load_ms = 0, tuning_ms = 0, upload_ms = 0;
  int programs_compiled = 0, programs_from_cache = 0;
  int launches_tuned = 0, launches_tuned_cached = 0;
  // Serialization: models whose entry was found and valid, or not.
  int cache_hits = 0, cache_misses = 0;
  bool cache_enabled = false;
  std::vector<std::string> cache_warnings;  // each printed once to stderr as "WARNING: ..."
  // Device memory of the delegate's buffers (intermediates shared by
  // lifetime, weights, staging): now and at most so far.
  uint64_t device_bytes = 0, peak_device_bytes = 0;
  // Bytes of the partitions' inputs and outputs moved between the CPU and
  // the GPU, summed over every Invoke: through staging buffers (an extra host
  // copy), or directly from and to the tensor arena (pinned_tensor_arena).
  uint64_t host_bytes_staged = 0, host_bytes_direct = 0;
};
// Zeros for any other delegate.
RELITE_API GpuDelegateStats GetGpuDelegateStats(const Delegate& delegate);

}  // namespace relite
