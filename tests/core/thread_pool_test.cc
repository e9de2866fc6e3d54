#include "src/core/interpreter/thread_pool.h"

#include <atomic>
#include <vector>

#include <gtest/gtest.h>

namespace relite {
namespace {

TEST(ThreadPool, CoversEveryIndexExactlyOnce) {
  for (int threads : {1, 2, 3, 8}) {
    ThreadPool pool(threads);
    for (int64_t n : {0, 1, 2, 7, 100, 1001}) {
      for (int64_t min_chunk : {1, 3, 64}) {
        std::vector<std::atomic<int>> hits(static_cast<size_t>(n));
        pool.ParallelFor(n, min_chunk, [&](int64_t b, int64_t e) {
          ASSERT_LE(0, b);
          ASSERT_LE(b, e);
          ASSERT_LE(e, n);
          for (int64_t i = b; i < e; ++i) hits[static_cast<size_t>(i)].fetch_add(1);
        });
        for (int64_t i = 0; i < n; ++i) EXPECT_EQ(hits[static_cast<size_t>(i)].load(), 1) << "n=" << n << " i=" << i;
      }
    }
  }
}

TEST(ThreadPool, ManyBackToBackJobsDoNotMixUp) {
  ThreadPool pool(4);
  std::atomic<int64_t> total{0};
  for (int job = 0; job < 20000; ++job) {
    pool.ParallelFor(4, 1, [&, job](int64_t b, int64_t e) { total.fetch_add((e - b) * (job % 7)); });
  }
  int64_t expected = 0;
  for (int job = 0; job < 20000; ++job) expected += 4 * (job % 7);
  EXPECT_EQ(total.load(), expected);
}

TEST(ThreadPool, UsesAtMostSizeChunks) {
  ThreadPool pool(2);
  std::atomic<int> chunks{0};
  pool.ParallelFor(1000, 1, [&](int64_t, int64_t) { chunks.fetch_add(1); });
  EXPECT_LE(chunks.load(), 2);
  EXPECT_EQ(pool.size(), 2);
}

}  // namespace
}  // namespace relite
