// The GPU delegate: runs the float ops of a model on a GPU through OpenCL
// (any OpenCL 1.2 device: NVIDIA/AMD/Intel/Mali GPUs, or PoCL on a CPU).
//
//   relite::GpuDelegateOptions options;                // fp32, first GPU
//   options.precision = relite::GpuPrecision::kFp16;   // allow precision loss
//   auto gpu = relite::CreateGpuDelegate(options);     // error value when unavailable
//   if (!gpu.ok()) { /* e.g. no OpenCL library: run on the CPU */ }
//   auto interp = relite::InterpreterBuilder(*model, resolver).AddDelegate(gpu->get()).Build();
//
// The OpenCL library is loaded at run time (dlopen), so relite builds and
// runs where none is installed; CreateGpuDelegate then returns Unavailable
// with the reason. RELITE_OPENCL_LIBRARY overrides the library searched for.
// The delegate must outlive the interpreters it was applied to.
#pragma once

#include "relite/export.h"

#include <cstdint>
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

enum class GpuInferencePreference : uint8_t {
  kFastSingleAnswer,  // one answer soon: least initialisation work
  kSustainedSpeed,    // many inferences: initialisation may take longer
};

// Bits of GpuDelegateOptions::experimental_flags.
enum GpuExperimentalFlags : uint64_t {
  kGpuExperimentalNone = 0,
  kGpuExperimentalQuantizedModels = 1u << 0,  // reserved: quantized models on the GPU
  kGpuExperimentalSerialization = 1u << 1,    // reserved: on-disk cache of compiled kernels
};

struct GpuDelegateOptions {
  GpuPrecision precision = GpuPrecision::kFp32;
  GpuInferencePreference inference_preference = GpuInferencePreference::kFastSingleAnswer;
  // Partitions handed to the GPU, largest estimated work first; 0: all.
  int max_delegated_partitions = 0;
  int min_nodes_per_partition = 1;
  uint64_t experimental_flags = kGpuExperimentalNone;
  // Device: by index into ListGpuDevices(), else by a case-insensitive
  // substring of the device or platform name, else the first GPU, else the
  // first OpenCL device (e.g. PoCL's CPU device).
  int device_index = -1;
  std::string device_name;
  // Reserved for kGpuExperimentalSerialization.
  std::string serialization_dir;
  std::string model_token;
};

// The delegate, or an error value: Unavailable (no OpenCL library, no
// platform or device), NotFound (no device matches the choice),
// Unimplemented (a reserved experimental flag is set).
RELITE_API StatusOr<std::unique_ptr<Delegate>> CreateGpuDelegate(const GpuDelegateOptions& options = {});

// "#0 NVIDIA H200 (NVIDIA CUDA, OpenCL 3.0 CUDA, GPU)", one per OpenCL device.
RELITE_API StatusOr<std::vector<std::string>> ListGpuDevices();

// The device a GPU delegate created by CreateGpuDelegate runs on, described
// as ListGpuDevices does; empty for any other delegate.
RELITE_API std::string GpuDelegateDevice(const Delegate& delegate);

// What a GPU delegate built, summed over the interpreters it was applied to.
// A partition's time on a GPU is dominated by its kernel count.
struct GpuDelegateStats {
  int partitions = 0;
  int nodes = 0;          // model nodes in those partitions
  int kernels = 0;        // launches per Invoke, boundary conversions included
  int folded_clamps = 0;  // RELU-style nodes folded into their producer
  int folded_adds = 0;    // ADD nodes folded into the convolution producing an operand
};
// Zeros for any other delegate.
RELITE_API GpuDelegateStats GetGpuDelegateStats(const Delegate& delegate);

}  // namespace relite
