// Work-group (block) shapes for a launch, shared by the backends: the
// heuristic choice, fitting it to the device's and kernel's limits, and the
// candidates that sustained-speed tuning times on the device.
#pragma once

#include <array>
#include <cstddef>
#include <string>
#include <vector>

#include <functional>

#include "relite/status.h"
#include "src/delegates/gpu/backend.h"
#include "src/delegates/gpu/gpu_program.h"

namespace relite::gpu {

using Dims3 = std::array<size_t, 3>;

struct WorkGroupLimits {
  size_t max_total = 64;          // work items per group (device and kernel)
  Dims3 max_item{0, 0, 0};        // per dimension; 0: no limit known
  bool is_gpu = true;             // else a CPU device (PoCL): one fixed shape
};

struct LaunchGeometry {
  Dims3 global{1, 1, 1};  // rounded up to whole groups (the templates bound-check)
  Dims3 local{1, 1, 1};
};

// The heuristic shape fitted to `limits`; an error when a template that fixes
// its group's dimension 0 (its lanes) cannot get it (`api` names the backend
// in the message).
StatusOr<LaunchGeometry> ChooseGeometry(const KernelLaunch& launch, const WorkGroupLimits& limits, const std::string& api,
                                        const std::string& device);

// The launch's grid rounded up to groups of `local`.
LaunchGeometry GeometryWithLocal(const KernelLaunch& launch, const Dims3& local);

// Shapes worth timing for a launch that lets the backend choose (the
// heuristic `current` first, so that ties keep it).
std::vector<Dims3> TuningCandidates(const KernelLaunch& launch, const WorkGroupLimits& limits, const Dims3& current);

// Sustained-speed tuning of one launch, shared by the backends: the shape
// kept in `cache` under `tune_name` when there is one that fits, else
// `tune()` (the backend times the candidates on its device), stored there;
// `timings` counts either.
LaunchGeometry TunedGeometry(const KernelLaunch& launch, const WorkGroupLimits& limits, const LaunchGeometry& heuristic,
                             const std::string& tune_name, CacheEntry* cache, BackendTimings* timings,
                             const std::function<Dims3()>& tune);

}  // namespace relite::gpu
