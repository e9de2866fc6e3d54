#include "src/delegates/gpu/kernel_profile.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <utility>
#include <vector>

namespace relite::gpu {

bool GpuProfilingRequested() {
  const char* profile = std::getenv("RELITE_GPU_PROFILE");
  return profile != nullptr && std::string(profile) == "1";
}

void KernelProfile::Print(const std::string& device) const {
  std::vector<std::pair<double, std::string>> rows;
  double total = 0;
  for (const auto& [name, e] : entries_) {
    rows.push_back({e.ns, name});
    total += e.ns;
  }
  std::sort(rows.rbegin(), rows.rend());
  std::fprintf(stderr, "GPU kernel profile (%s): total %.1f us of kernel time\n", device.c_str(), total / 1e3);
  for (const auto& [ns, name] : rows) {
    const Entry& e = entries_.at(name);
    std::fprintf(stderr, "  %-60s %8lld launches %10.1f us total %8.2f us each %5.1f%%\n", name.c_str(),
                 static_cast<long long>(e.count), ns / 1e3, ns / 1e3 / static_cast<double>(e.count),
                 total > 0 ? 100.0 * ns / total : 0.0);
  }
}

}  // namespace relite::gpu
