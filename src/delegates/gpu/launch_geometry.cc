#include "src/delegates/gpu/launch_geometry.h"

#include <algorithm>
#include <chrono>
#include <cstring>

#include <fmt/format.h>

namespace relite::gpu {
namespace {

size_t PowerOfTwoAtLeast(size_t n) {
  size_t p = 1;
  while (p < n) p <<= 1;
  return p;
}

}  // namespace

LaunchGeometry GeometryWithLocal(const KernelLaunch& launch, const Dims3& local) {
  LaunchGeometry g;
  for (size_t d = 0; d < 3; ++d) {
    g.local[d] = std::max<size_t>(local[d], 1);
    const size_t n = std::max<size_t>(launch.global[d], 1);
    g.global[d] = (n + g.local[d] - 1) / g.local[d] * g.local[d];
  }
  return g;
}

StatusOr<LaunchGeometry> ChooseGeometry(const KernelLaunch& launch, const WorkGroupLimits& limits, const std::string& api,
                                        const std::string& device) {
  const size_t limit = std::max<size_t>(limits.max_total, 1);
  Dims3 global, local;
  for (size_t d = 0; d < 3; ++d) global[d] = std::max<size_t>(launch.global[d], 1);
  if (launch.local[0] != 0) {
    // The template fixes its work group (lanes, tiles in local memory).
    for (size_t d = 0; d < 3; ++d) local[d] = std::max<size_t>(launch.local[d], 1);
  } else if (!limits.is_gpu) {
    // CPU devices (PoCL) compile one work-group function per local size:
    // one fixed size keeps that to one per program.
    local = {8, 2, 1};
  } else {
    // About 128 work items, x first (consecutive x are consecutive addresses).
    const size_t budget = std::min<size_t>(128, limit);
    local[0] = std::min(PowerOfTwoAtLeast(global[0]), std::min<size_t>(budget, 32));
    local[1] = std::min(PowerOfTwoAtLeast(global[1]), budget / local[0]);
    local[2] = std::min(PowerOfTwoAtLeast(global[2]), budget / (local[0] * local[1]));
  }
  size_t total = 1;
  for (size_t d = 0; d < 3; ++d) {
    local[d] = std::max<size_t>(1, std::min(local[d], limits.max_item[d] > 0 ? limits.max_item[d] : local[d]));
    total *= local[d];
  }
  if (launch.local[0] != 0) {
    // A template that asks for its work group relies on dimension 0 (its
    // lanes): shrink the others only.
    for (int d = 2; d >= 1 && total > limit; --d) {
      while (total > limit && local[static_cast<size_t>(d)] > 1) {
        total /= local[static_cast<size_t>(d)];
        local[static_cast<size_t>(d)] /= 2;
        total *= local[static_cast<size_t>(d)];
      }
    }
    if (total > limit) {
      return UnavailableError(fmt::format("{}: kernel '{}' needs {} work items per group, {} allows {}", api, launch.entry,
                                          local[0], device, limit));
    }
  }
  while (total > limit) {  // shrink the largest dimension until it fits
    const size_t d = static_cast<size_t>(std::max_element(local.begin(), local.end()) - local.begin());
    total /= local[d];
    local[d] = std::max<size_t>(1, local[d] / 2);
    total *= local[d];
  }
  return GeometryWithLocal(launch, local);
}

LaunchGeometry TunedGeometry(const KernelLaunch& launch, const WorkGroupLimits& limits, const LaunchGeometry& heuristic,
                             const std::string& tune_name, CacheEntry* cache, BackendTimings* timings,
                             const std::function<Dims3()>& tune) {
  size_t cached[3] = {0, 0, 0};
  const std::string* blob = cache != nullptr ? cache->Find(tune_name) : nullptr;
  if (blob != nullptr && blob->size() == sizeof(cached)) {
    std::memcpy(cached, blob->data(), sizeof(cached));
    if (cached[0] * cached[1] * cached[2] > limits.max_total) return heuristic;
    ++timings->launches_tuned_cached;
    return GeometryWithLocal(launch, {cached[0], cached[1], cached[2]});
  }
  const auto start = std::chrono::steady_clock::now();
  const Dims3 best = tune();
  timings->tuning_ms += std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  ++timings->launches_tuned;
  const size_t value[3] = {best[0], best[1], best[2]};
  if (cache != nullptr) cache->Put(tune_name, std::string(reinterpret_cast<const char*>(value), sizeof(value)));
  return GeometryWithLocal(launch, best);
}

std::vector<Dims3> TuningCandidates(const KernelLaunch& launch, const WorkGroupLimits& limits, const Dims3& current) {
  std::vector<Dims3> candidates = {current};
  const size_t limit = limits.max_total;
  if (!limits.is_gpu) {
    // A CPU device (PoCL) compiles one function per work-group shape: two
    // alternatives only (RELITE_GPU_TUNE_ANY_DEVICE=1, for tests).
    candidates.push_back({std::min<size_t>(16, limit), 1, 1});
    candidates.push_back({std::min<size_t>(4, limit), std::min<size_t>(4, limit / 4), 1});
    return candidates;
  }
  auto fits = [&](size_t v, size_t d) { return limits.max_item[d] == 0 || v <= limits.max_item[d]; };
  for (size_t x : {8, 16, 32, 64, 128, 256}) {
    for (size_t y : {1, 2, 4, 8, 16}) {
      for (size_t z : {1, 2, 4}) {
        if (x * y * z > limit || x * y * z < 32 || !fits(x, 0) || !fits(y, 1) || !fits(z, 2)) continue;
        if (x > 2 * PowerOfTwoAtLeast(launch.global[0]) || y > 2 * PowerOfTwoAtLeast(launch.global[1]) ||
            z > 2 * PowerOfTwoAtLeast(launch.global[2])) {
          continue;  // mostly idle groups
        }
        candidates.push_back({x, y, z});
      }
    }
  }
  return candidates;
}

}  // namespace relite::gpu
