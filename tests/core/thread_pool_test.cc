#include "src/core/interpreter/thread_pool.h"

#include "src/core/interpreter/denormal_mode.h"
#include "src/kernels/cpu/internal/gemm.h"
#include "src/kernels/cpu/internal/slot_tasks.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <thread>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

namespace relite {
namespace {

using cpu::SlotTasks;

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

// Kernels keep a thread on the same part of the image from one node to the
// next (SlotTasks); that needs chunk 0 on the caller in every job.
TEST(ThreadPool, ChunkZeroRunsOnTheCaller) {
  ThreadPool pool(3);
  const std::thread::id caller = std::this_thread::get_id();
  for (int job = 0; job < 200; ++job) {
    std::atomic<bool> zero_on_caller{false};
    pool.ParallelFor(3, 1, [&](int64_t b, int64_t e) {
      if (b == 0 && e > 0) zero_on_caller.store(std::this_thread::get_id() == caller);
    });
    ASSERT_TRUE(zero_on_caller.load()) << "job " << job;
  }
}

// Whether a chunk that ran on a worker thread (not the caller) saw the
// subnormal-flushing mode. The caller's chunk waits (up to a second) for the
// other to start, so that a worker, even one woken from sleep, takes it.
bool WorkerFlushes(bool flush_denormals) {
  ThreadPool pool(2, flush_denormals);
  const std::thread::id caller = std::this_thread::get_id();
  for (int attempt = 0; attempt < 10; ++attempt) {
    std::atomic<int> seen{-1};  // -1: no chunk on a worker; else 0 or 1
    std::atomic<bool> started{false};
    pool.ParallelFor(2, 1, [&](int64_t b, int64_t) {
      if (b == 0) {
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(1);
        while (!started.load() && std::chrono::steady_clock::now() < deadline) std::this_thread::yield();
        return;
      }
      started.store(true);
      if (std::this_thread::get_id() != caller) seen.store(ThisThreadFlushesDenormals() ? 1 : 0);
    });
    if (seen.load() >= 0) return seen.load() == 1;
  }
  ADD_FAILURE() << "no chunk ran on the worker";
  return false;
}

TEST(ThreadPool, WorkersFlushSubnormalsWhenAsked) {
#if defined(__x86_64__) || defined(__aarch64__)
  EXPECT_TRUE(WorkerFlushes(true));
  EXPECT_FALSE(WorkerFlushes(false));
#else
  GTEST_SKIP() << "no flush-to-zero control on this architecture";
#endif
}

TEST(SlotTasks, EachSlotStartsOnItsOwnRangeThenHelps) {
  SlotTasks tasks(10, 3);  // ranges [0,3) [3,6) [6,10)
  std::vector<int> order;
  for (int t = tasks.Next(1); t >= 0; t = tasks.Next(1)) order.push_back(t);
  EXPECT_EQ(order, (std::vector<int>{3, 4, 5, 6, 7, 8, 9, 0, 1, 2}));
  EXPECT_EQ(tasks.Next(0), -1);
}

// Kernels keep one SlotTasks and reset it per run, with more or fewer slots.
TEST(SlotTasks, ResetStartsAFreshRound) {
  SlotTasks tasks;
  for (auto [n, slots] : {std::pair{4, 1}, std::pair{10, 3}, std::pair{5, 2}}) {
    tasks.Reset(n, slots);
    std::vector<int> order;
    for (int t = tasks.Next(0); t >= 0; t = tasks.Next(0)) order.push_back(t);
    std::vector<int> all(static_cast<size_t>(n));
    for (int i = 0; i < n; ++i) all[static_cast<size_t>(i)] = i;
    EXPECT_EQ(order, all) << n << " tasks, " << slots << " slots";
  }
}

TEST(SlotTasks, EveryTaskRunsOnceUnderContention) {
  ThreadPool pool(4);
  for (int n : {0, 1, 5, 97, 1000}) {
    for (int slots : {1, 3, 4}) {
      SlotTasks tasks(n, slots);
      std::vector<std::atomic<int>> hits(static_cast<size_t>(n));
      pool.ParallelFor(slots, 1, [&](int64_t b, int64_t e) {
        for (int64_t s = b; s < e; ++s) {
          for (int t = tasks.Next(static_cast<int>(s)); t >= 0; t = tasks.Next(static_cast<int>(s))) {
            hits[static_cast<size_t>(t)].fetch_add(1);
          }
        }
      });
      for (int i = 0; i < n; ++i) EXPECT_EQ(hits[static_cast<size_t>(i)].load(), 1) << "n=" << n << " i=" << i;
    }
  }
}

TEST(GemmPartition, TasksCoverTheProductOnceInBalancedRowBlocks) {
  using cpu::GemmPartition;
  for (int m : {1, 7, 49, 50, 196, 3136}) {
    for (int n : {1, 16, 24, 672}) {
      for (int threads : {1, 2, 3, 8}) {
        for (int max_rows : {12, 96, 4096}) {
          for (int per_thread : {1, 4}) {
            SCOPED_TRACE(::testing::Message() << "m=" << m << " n=" << n << " threads=" << threads
                                              << " max=" << max_rows << " per thread=" << per_thread);
            const GemmPartition p = cpu::PartitionGemm(m, n, 64, threads, max_rows, per_thread);
            std::vector<int> hits(static_cast<size_t>(m) * n, 0);
            int shortest = m, tallest = 0;
            for (int t = 0; t < p.num_tasks(); ++t) {
              int m0, m1, n0, n1;
              p.Task(t, &m0, &m1, &n0, &n1);
              ASSERT_TRUE(0 <= m0 && m0 < m1 && m1 <= m && 0 <= n0 && n0 < n1 && n1 <= n);
              EXPECT_LE(m1 - m0, p.rows_per_task);
              EXPECT_EQ(n0 % cpu::kGemmPanelWidth, 0);
              shortest = std::min(shortest, m1 - m0);
              tallest = std::max(tallest, m1 - m0);
              for (int i = m0; i < m1; ++i) {
                for (int j = n0; j < n1; ++j) ++hits[static_cast<size_t>(i) * n + j];
              }
            }
            EXPECT_EQ(std::count(hits.begin(), hits.end(), 1), static_cast<std::ptrdiff_t>(hits.size()));
            EXPECT_LE(tallest - shortest, 1);  // 49 rows: never 12, 12, 12, 12 and 1
            // One task per thread: a 49-row product on two threads is 24 + 25 rows.
            if (per_thread == 1 && threads == 2 && max_rows == 4096 && int64_t{m} * n * 64 >= (int64_t{1} << 16) &&
                m >= 24) {
              EXPECT_EQ(p.num_tasks(), 2);
            }
          }
        }
      }
    }
  }
}

}  // namespace
}  // namespace relite
