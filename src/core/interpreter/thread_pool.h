// A fixed pool of worker threads for data-parallel kernel loops.
//
// Kernels run for microseconds to milliseconds, so dispatch latency matters:
// workers spin briefly on an atomic before sleeping, and a job is claimed
// chunk by chunk through one 64-bit atomic (job id | chunk count | next chunk)
// so a late worker can never run a chunk of a job that has moved on.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace relite {

class ThreadPool {
 public:
  // `num_threads` includes the calling thread; 1 means no worker threads.
  // `flush_denormals`: the workers take subnormal floats as zero
  // (denormal_mode.h); the caller's thread is the caller's to set.
  explicit ThreadPool(int num_threads, bool flush_denormals = false);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  int size() const { return num_threads_; }

  // Calls fn(begin, end) on disjoint ranges covering [0, n), using at most
  // size() chunks of at least min_chunk items; blocks until all are done.
  void ParallelFor(int64_t n, int64_t min_chunk, const std::function<void(int64_t, int64_t)>& fn);

 private:
  void WorkerLoop(bool flush_denormals);
  // Claims and runs chunks of the current job until none is left.
  void RunChunks(uint64_t job_id);

  const int num_threads_;
  std::vector<std::thread> workers_;

  std::atomic<uint64_t> state_{0};  // job id << 32 | chunks << 16 | next chunk
  std::atomic<int> done_{0};
  std::atomic<int> sleepers_{0};
  std::atomic<bool> stop_{false};
  uint32_t job_id_ = 0;  // owned by the caller thread
  const std::function<void(int64_t, int64_t)>* fn_ = nullptr;
  int64_t n_ = 0;

  std::mutex mutex_;
  std::condition_variable wake_;
};

}  // namespace relite
