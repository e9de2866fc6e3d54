// The CLI's delegate registry: `--delegate NAME` looks NAME up here. A
// delegate registers a factory in RegisterBuiltinDelegates (delegates.cc),
// which the CLI calls once; nothing is registered that this build lacks.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "relite/delegate.h"
#include "relite/status.h"

namespace relite::cli {

// Command-line settings a delegate factory may read.
struct DelegateFlags {
  std::string name;
  std::string precision = "fp32";  // --precision fp32|fp16
  std::string device;              // --gpu-device N or a name substring
  std::string serialization_dir;   // --serialization-dir DIR: the GPU kernel cache
  std::string model_token;         // --model-token T
  std::string preference = "fast";  // --inference-preference fast|sustained
  std::string gpu_backend = "auto"; // --gpu-backend auto|opencl|cuda
  bool force = false;               // --onednn-force
};

using DelegateFactory = std::function<StatusOr<std::unique_ptr<Delegate>>(const DelegateFlags& flags)>;

struct DelegateEntry {
  std::string name;
  std::string description;
  DelegateFactory create;
};

// Adds or replaces a registration.
void RegisterDelegate(const std::string& name, const std::string& description, DelegateFactory factory);
// Registered delegates, by name.
std::vector<DelegateEntry> RegisteredDelegates();
// The delegate registered as flags.name; NotFound naming the available ones
// when there is none.
StatusOr<std::unique_ptr<Delegate>> CreateDelegate(const DelegateFlags& flags);
// One line about what the delegate built (GPU: kernels per Invoke, folded
// nodes; oneDNN: primitives per Invoke, ISA), or empty.
std::string DelegateBuildSummary(const Delegate& delegate);
// A delegate's initialisation in parts, prefixed by its name ("GPU: context
// ..., compile ...", "oneDNN: primitives ..., weight reorders ..."), or empty.
std::string DelegateInitBreakdown(const Delegate& delegate);
// What this build ships (called once by main).
void RegisterBuiltinDelegates();

}  // namespace relite::cli
