#include "src/core/interpreter/thread_pool.h"

#include <algorithm>

#include "src/core/interpreter/denormal_mode.h"

// A spin-wait hint: PAUSE on x86, YIELD on AArch64 (both tell the core this is
// a spin loop, without giving the thread up); elsewhere the OS yield.
#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define RELITE_CPU_RELAX() _mm_pause()
#elif defined(__aarch64__)
#define RELITE_CPU_RELAX() asm volatile("yield" ::: "memory")
#else
#define RELITE_CPU_RELAX() std::this_thread::yield()
#endif

namespace relite {
namespace {
// About 50-100 us of spinning: long enough to bridge the gap between two
// consecutive kernels, short enough not to burn a core while idle.
constexpr int kSpinIterations = 20000;

uint64_t JobOf(uint64_t s) { return s >> 32; }
uint32_t ChunksOf(uint64_t s) { return static_cast<uint32_t>((s >> 16) & 0xffff); }
uint32_t NextOf(uint64_t s) { return static_cast<uint32_t>(s & 0xffff); }
}  // namespace

ThreadPool::ThreadPool(int num_threads, bool flush_denormals) : num_threads_(std::clamp(num_threads, 1, 256)) {
  for (int i = 1; i < num_threads_; ++i) workers_.emplace_back([this, flush_denormals] { WorkerLoop(flush_denormals); });
}

ThreadPool::~ThreadPool() {
  stop_.store(true);
  {
    std::lock_guard<std::mutex> lock(mutex_);
    wake_.notify_all();
  }
  for (auto& t : workers_) t.join();
}

void ThreadPool::RunChunks(uint64_t job_id) {
  uint64_t s = state_.load(std::memory_order_acquire);
  while (JobOf(s) == job_id && NextOf(s) < ChunksOf(s)) {
    if (!state_.compare_exchange_weak(s, s + 1, std::memory_order_acq_rel, std::memory_order_acquire)) continue;
    const int64_t chunks = ChunksOf(s);
    const int64_t c = NextOf(s);
    const int64_t begin = n_ * c / chunks;
    const int64_t end = n_ * (c + 1) / chunks;
    (*fn_)(begin, end);
    done_.fetch_add(1, std::memory_order_acq_rel);
    s = state_.load(std::memory_order_acquire);
  }
}

void ThreadPool::WorkerLoop(bool flush_denormals) {
  if (flush_denormals) FlushDenormalsOnThisThread();
  uint64_t seen = 0;
  while (true) {
    uint64_t job = JobOf(state_.load(std::memory_order_acquire));
    for (int spin = 0; job == seen && spin < kSpinIterations && !stop_.load(std::memory_order_relaxed); ++spin) {
      RELITE_CPU_RELAX();
      job = JobOf(state_.load(std::memory_order_acquire));
    }
    if (job == seen) {
      std::unique_lock<std::mutex> lock(mutex_);
      sleepers_.fetch_add(1);
      wake_.wait(lock, [&] { return stop_.load() || JobOf(state_.load()) != seen; });
      sleepers_.fetch_sub(1);
      job = JobOf(state_.load());
    }
    if (stop_.load()) return;
    seen = job;
    RunChunks(job);
  }
}

void ThreadPool::ParallelFor(int64_t n, int64_t min_chunk, const std::function<void(int64_t, int64_t)>& fn) {
  if (n <= 0) return;
  min_chunk = std::max<int64_t>(min_chunk, 1);
  const int64_t chunks = std::min<int64_t>(num_threads_, (n + min_chunk - 1) / min_chunk);
  if (chunks <= 1) {
    fn(0, n);
    return;
  }
  fn_ = &fn;
  n_ = n;
  done_.store(0, std::memory_order_relaxed);
  ++job_id_;
  // Chunk 0 is the caller's, so with one worker awake the chunks map to
  // threads the same way in every job (kernels rely on it for cache
  // locality, see SlotTasks); the others are claimed as workers arrive.
  state_.store((static_cast<uint64_t>(job_id_) << 32) | (static_cast<uint64_t>(chunks) << 16) | 1);
  if (sleepers_.load() > 0) {
    std::lock_guard<std::mutex> lock(mutex_);
    wake_.notify_all();
  }
  fn(0, n / chunks);
  done_.fetch_add(1, std::memory_order_acq_rel);
  RunChunks(job_id_);
  while (done_.load(std::memory_order_acquire) < chunks) RELITE_CPU_RELAX();
}

}  // namespace relite
