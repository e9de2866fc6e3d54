// Tasks [0, n) shared by `slots` parallel slots (ParallelFor chunks): slot s
// first takes, in order, the tasks of its own contiguous range, then helps
// with the ranges of the others.
//
// Why not one shared counter: with contiguous ranges, consecutive kernels
// give a thread the same part of the image (the thread pool runs chunk 0 on
// the caller and chunk i on worker i whenever they are awake), so the rows a
// kernel reads were mostly written by the same core and are still in its L2.
// Helping keeps the property of the shared counter that a thread delayed by
// a busy core leaves its work to the others instead of making them wait.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <memory>

namespace relite::cpu {

class SlotTasks {
 public:
  SlotTasks() = default;
  SlotTasks(int num_tasks, int num_slots) { Reset(num_tasks, num_slots); }

  // Starts a new round. A kernel keeps one SlotTasks and resets it on every
  // Eval: the ranges are allocated only when the slot count grows.
  void Reset(int num_tasks, int num_slots) {
    num_slots_ = std::max(1, num_slots);
    if (num_slots_ > capacity_) {
      ranges_ = std::make_unique<Range[]>(static_cast<size_t>(num_slots_));
      capacity_ = num_slots_;
    }
    for (int s = 0; s < num_slots_; ++s) {
      ranges_[s].next.store(static_cast<int>(int64_t{num_tasks} * s / num_slots_), std::memory_order_relaxed);
      ranges_[s].end = static_cast<int>(int64_t{num_tasks} * (s + 1) / num_slots_);
    }
  }

  // The next task for `slot`, or -1 when every task is taken.
  int Next(int slot) {
    for (int i = 0; i < num_slots_; ++i) {
      Range& r = ranges_[(slot + i) % num_slots_];
      if (r.next.load(std::memory_order_relaxed) >= r.end) continue;
      const int t = r.next.fetch_add(1, std::memory_order_relaxed);
      if (t < r.end) return t;
    }
    return -1;
  }

 private:
  struct alignas(64) Range {
    std::atomic<int> next{0};
    int end = 0;
  };
  int num_slots_ = 0;
  int capacity_ = 0;
  std::unique_ptr<Range[]> ranges_;
};

}  // namespace relite::cpu
