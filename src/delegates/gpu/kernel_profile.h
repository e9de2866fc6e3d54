// RELITE_GPU_PROFILE=1: device time per kernel (entry and grid), summed over
// every Invoke and printed when the backend is destroyed.
#pragma once

#include <cstdint>
#include <map>
#include <string>

namespace relite::gpu {

// Whether RELITE_GPU_PROFILE=1 is set.
bool GpuProfilingRequested();

class KernelProfile {
 public:
  void Add(const std::string& kernel, double ns) {
    Entry& e = entries_[kernel];
    e.ns += ns;
    e.count += 1;
  }
  bool empty() const { return entries_.empty(); }
  // To stderr, slowest first.
  void Print(const std::string& device) const;

 private:
  struct Entry {
    double ns = 0;
    int64_t count = 0;
  };
  std::map<std::string, Entry> entries_;
};

}  // namespace relite::gpu
