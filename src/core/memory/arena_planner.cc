#include "src/core/memory/arena_planner.h"

#include <algorithm>
#include <cstdint>
#include <numeric>

namespace relite {
namespace {
size_t AlignUp(size_t v) { return (v + kArenaAlignment - 1) / kArenaAlignment * kArenaAlignment; }
}  // namespace

ArenaPlan PlanArena(const std::vector<BufferUse>& uses) {
  ArenaPlan plan;
  plan.offsets.assign(uses.size(), 0);
  std::vector<size_t> order(uses.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return uses[a].bytes > uses[b].bytes; });

  struct Placed {
    size_t offset, end;
    int first, last;
  };
  std::vector<Placed> placed;
  placed.reserve(uses.size());
  std::vector<Placed> overlapping;
  for (size_t idx : order) {
    const BufferUse& u = uses[idx];
    const size_t size = AlignUp(u.bytes);
    plan.unplanned_bytes += size;
    if (size == 0) continue;
    overlapping.clear();
    for (const Placed& p : placed) {
      if (p.first <= u.last && u.first <= p.last) overlapping.push_back(p);
    }
    std::sort(overlapping.begin(), overlapping.end(), [](const Placed& a, const Placed& b) { return a.offset < b.offset; });
    // Best fit among the gaps between time-overlapping buffers.
    size_t best = SIZE_MAX, best_gap = SIZE_MAX, cursor = 0;
    for (const Placed& p : overlapping) {
      if (p.offset >= cursor + size && p.offset - cursor < best_gap) {
        best = cursor;
        best_gap = p.offset - cursor;
      }
      cursor = std::max(cursor, p.end);
    }
    if (best == SIZE_MAX) best = cursor;
    plan.offsets[idx] = best;
    placed.push_back({best, best + size, u.first, u.last});
    plan.arena_bytes = std::max(plan.arena_bytes, best + size);
  }
  return plan;
}

}  // namespace relite
