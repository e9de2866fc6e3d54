#include "src/core/memory/arena_planner.h"

#include <random>

#include <gtest/gtest.h>

namespace relite {
namespace {

TEST(ArenaPlanner, DisjointLifetimesShareMemory) {
  // A chain a -> b -> c: a and c never live together.
  const ArenaPlan plan = PlanArena({{1000, 0, 1}, {1000, 1, 2}, {1000, 2, 3}});
  EXPECT_EQ(plan.offsets[0], plan.offsets[2]);
  EXPECT_NE(plan.offsets[0], plan.offsets[1]);
  EXPECT_EQ(plan.arena_bytes, 2 * 1024u);
  EXPECT_EQ(plan.unplanned_bytes, 3 * 1024u);
}

TEST(ArenaPlanner, OffsetsAreAligned) {
  const ArenaPlan plan = PlanArena({{3, 0, 0}, {5, 0, 0}, {70, 0, 0}});
  for (size_t off : plan.offsets) EXPECT_EQ(off % kArenaAlignment, 0u);
}

TEST(ArenaPlanner, RandomPlansNeverOverlapLiveBuffers) {
  std::mt19937 rng(42);
  for (int round = 0; round < 200; ++round) {
    std::vector<BufferUse> uses(1 + rng() % 60);
    for (auto& u : uses) {
      u.bytes = rng() % 5000;
      u.first = static_cast<int>(rng() % 40);
      u.last = u.first + static_cast<int>(rng() % 10);
    }
    const ArenaPlan plan = PlanArena(uses);
    for (size_t i = 0; i < uses.size(); ++i) {
      EXPECT_LE(plan.offsets[i] + uses[i].bytes, plan.arena_bytes);
      for (size_t j = i + 1; j < uses.size(); ++j) {
        const bool time = uses[i].first <= uses[j].last && uses[j].first <= uses[i].last;
        const bool space = uses[i].bytes > 0 && uses[j].bytes > 0 &&
                           plan.offsets[i] < plan.offsets[j] + uses[j].bytes &&
                           plan.offsets[j] < plan.offsets[i] + uses[i].bytes;
        EXPECT_FALSE(time && space) << "buffers " << i << " and " << j << " collide in round " << round;
      }
    }
  }
}

}  // namespace
}  // namespace relite
