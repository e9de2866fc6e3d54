// Device buffers for a partition's values: values whose lifetimes (the launch
// steps from first to last use) do not overlap share a buffer, the smallest
// free one that fits, as the CPU's arena planner shares memory.
#pragma once

#include <cstddef>
#include <vector>

namespace relite::gpu {

struct BufferRequest {
  int first = 0, last = 0;  // launch steps, inclusive
  size_t bytes = 0;
};

struct BufferPlan {
  std::vector<int> buffer_of;       // per request: index into `bytes`
  std::vector<size_t> bytes;        // per buffer
  size_t total_bytes() const;
};

BufferPlan PlanBuffers(const std::vector<BufferRequest>& requests);

}  // namespace relite::gpu
