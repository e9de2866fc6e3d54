#include "src/delegates/gpu/buffer_plan.h"

#include <algorithm>
#include <numeric>
#include <utility>

namespace relite::gpu {

size_t BufferPlan::total_bytes() const { return std::accumulate(bytes.begin(), bytes.end(), size_t{0}); }

BufferPlan PlanBuffers(const std::vector<BufferRequest>& requests) {
  BufferPlan plan;
  plan.buffer_of.assign(requests.size(), -1);
  std::vector<size_t> order(requests.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return requests[a].first < requests[b].first; });
  std::vector<int> free_buffers;
  std::vector<std::pair<int, int>> active;  // (last step, buffer)
  for (size_t r : order) {
    const BufferRequest& q = requests[r];
    for (auto it = active.begin(); it != active.end();) {
      if (it->first < q.first) {
        free_buffers.push_back(it->second);
        it = active.erase(it);
      } else {
        ++it;
      }
    }
    auto best = free_buffers.end();
    for (auto it = free_buffers.begin(); it != free_buffers.end(); ++it) {
      const size_t have = plan.bytes[static_cast<size_t>(*it)];
      if (have >= q.bytes && (best == free_buffers.end() || have < plan.bytes[static_cast<size_t>(*best)])) best = it;
    }
    int buffer;
    if (best != free_buffers.end()) {
      buffer = *best;
      free_buffers.erase(best);
    } else {
      buffer = static_cast<int>(plan.bytes.size());
      plan.bytes.push_back(q.bytes);
    }
    plan.buffer_of[r] = buffer;
    active.push_back({q.last, buffer});
  }
  return plan;
}

}  // namespace relite::gpu
