// Static memory plan: tensors whose lifetimes do not overlap share bytes.
#pragma once

#include <cstddef>
#include <vector>

namespace relite {

struct BufferUse {
  size_t bytes = 0;
  int first = 0;  // first step that needs the buffer
  int last = 0;   // last step that needs it (inclusive)
};

struct ArenaPlan {
  std::vector<size_t> offsets;  // one per BufferUse, in input order
  size_t arena_bytes = 0;       // size of the shared arena
  size_t unplanned_bytes = 0;   // sum of all sizes: the cost without reuse
};

constexpr size_t kArenaAlignment = 64;

// Greedy by size: place the largest buffers first, each at the lowest
// aligned offset that does not collide with an already placed buffer whose
// lifetime overlaps. Near-optimal on inference graphs and O(n^2) in the
// number of buffers, which is a few hundred.
ArenaPlan PlanArena(const std::vector<BufferUse>& uses);

}  // namespace relite
