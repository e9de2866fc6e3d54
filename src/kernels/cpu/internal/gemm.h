// Single-precision matrix products shared by CONV_2D, FULLY_CONNECTED and
// TRANSPOSE_CONV.
//
// The product is C[m][n] = act(sum_k A[m][k] * W[n][k] + bias[n]): A is
// row-major (activations, one row per output pixel or batch row), W is the
// row-major [N][K] weight matrix as TFLite stores it (one row per output
// channel). W is packed once into column panels (PackWeights) so that the
// register-tiled microkernel reads it as one contiguous stream; A is read in
// place, so a 1x1 convolution runs directly on NHWC data.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>

#include "relite/kernel.h"
#include "src/kernels/cpu/isa/kernel_table.h"

namespace relite::cpu {

// A 64-byte aligned float array owned by a kernel (packed weights). Resize
// keeps the storage when the size does not change.
class AlignedFloatBuffer {
 public:
  void Resize(size_t count);
  float* data() { return data_.get(); }
  const float* data() const { return data_.get(); }
  size_t size() const { return size_; }

 private:
  struct Free {
    void operator()(float* p) const { std::free(p); }
  };
  std::unique_ptr<float[], Free> data_;
  size_t size_ = 0;
};

// Rounds `p` up to a 64-byte boundary (scratch carving).
inline float* AlignFloats64(void* p) {
  const uintptr_t v = reinterpret_cast<uintptr_t>(p);
  return reinterpret_cast<float*>((v + 63) & ~static_cast<uintptr_t>(63));
}

// The fewest rows any ISA's register tile has (its own count:
// Kernels().gemm_f32_tile_rows); the column panel is 16 floats wide (8 for a
// last panel of at most 8 columns).
inline constexpr int kGemmTileRows = 6;
inline constexpr int kGemmPanelWidth = 16;

// Floats needed by the packed form of an [n][k] weight matrix.
size_t PackedWeightsSize(int n, int k);
// Packs W (row i at w + i * row_stride, k floats each) into `packed`.
void PackWeights(const float* w, int n, int k, size_t row_stride, float* packed);

// Activation clamp and optional per-column bias applied when C is stored.
struct GemmEpilogue {
  const float* bias = nullptr;  // n floats, or null for none
  float min = -__builtin_inff();
  float max = __builtin_inff();
  // A residual added before the clamp (a fused ADD): row i of the call's C
  // gets residual[i * residual_stride + j] in columns j < residual_columns
  // (fewer than n when the operand was channel-padded with zeros). GemmPacked
  // only; null for none.
  const float* residual = nullptr;
  size_t residual_stride = 0;
  int residual_columns = 0;
};

// Computes rows [0, m) and columns [n_begin, n_end) of C (row stride ldc)
// from A (m rows, stride lda) and the packed weights of an n-column product.
// n_begin must be a multiple of kGemmPanelWidth. Single-threaded.
void GemmPacked(int m, int n, int k, const float* a, size_t lda, const float* packed, const GemmEpilogue& epilogue,
                float* c, size_t ldc, int n_begin, int n_end);

// Largest count * length GemmPackedSegmented takes (one pass over K).
inline constexpr int kGemmMaxSegmentedDepth = 256;

// GemmPacked with row i's K values at a + i * lda + s * segments.stride + j
// (s < segments.count, j < segments.length), in that order.
void GemmPackedSegmented(int m, int n, const float* a, size_t lda, const GemmSegments& segments, const float* packed,
                         const GemmEpilogue& epilogue, float* c, size_t ldc, int n_begin, int n_end);

// How a product is cut into independent tasks for the thread pool: blocks
// of rows (m_tasks blocks of nearly equal height, at most rows_per_task)
// times groups of column panels, rows varying slowest.
struct GemmPartition {
  int m = 0, n = 0;
  int rows_per_task = 0;
  int m_tasks = 0;
  int cols_per_task = 0;  // a multiple of kGemmPanelWidth
  int n_tasks = 0;

  int num_tasks() const { return m_tasks * n_tasks; }
  void Task(int t, int* m_begin, int* m_end, int* n_begin, int* n_end) const;
};
// `max_rows_per_task` bounds the row block (e.g. by an im2col buffer).
// `tasks_per_thread`: about this many tasks per thread. The pool hands each
// thread a contiguous run of them (SlotTasks: then helps with the others'),
// so more tasks only let a thread that finishes early take a late one's
// rest, at the price of smaller, less aligned blocks.
GemmPartition PartitionGemm(int m, int n, int k, int num_threads, int max_rows_per_task, int tasks_per_thread);

// Float products take one task per thread: each thread's contiguous share
// of the rows is the share the depthwise and pooling kernels around them
// take, so what one kernel writes the next reads from the same core's
// cache, and a 49-row product splits 24 + 25, not in 9- and 10-row
// blocks. (hand_landmark_lite, 2 threads, Intel Xeon: 3-5% faster than 4
// tasks per thread; the 8-bit products kept 4, which were 2-3% faster.)
inline constexpr int kFloatGemmTasksPerThread = 1;

// GemmPacked over all of C, spread over ctx's threads.
void ParallelGemmPacked(KernelContext& ctx, int m, int n, int k, const float* a, size_t lda, const float* packed,
                        const GemmEpilogue& epilogue, float* c, size_t ldc);

// y[i] = act(dot(W[i], x) + bias[i]) for i in [n_begin, n_end), with W in its
// unpacked [n][k] layout (row stride row_stride): the batch-1 fully connected
// case, bound by reading W once.
void Gemv(int k, const float* w, size_t row_stride, const float* x, const GemmEpilogue& epilogue, float* y, int n_begin,
          int n_end);
void ParallelGemv(KernelContext& ctx, int n, int k, const float* w, size_t row_stride, const float* x,
                  const GemmEpilogue& epilogue, float* y);

// Splits `num_tasks` tasks into contiguous runs, one per slot in
// [0, num_slots): slot s gets [begin, end). Slots index per-thread scratch.
inline void SlotTaskRange(int num_tasks, int num_slots, int slot, int* begin, int* end) {
  *begin = static_cast<int>(static_cast<int64_t>(num_tasks) * slot / num_slots);
  *end = static_cast<int>(static_cast<int64_t>(num_tasks) * (slot + 1) / num_slots);
}

}  // namespace relite::cpu
