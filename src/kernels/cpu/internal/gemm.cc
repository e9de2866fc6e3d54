#include "src/kernels/cpu/internal/gemm.h"

#include <algorithm>
#include <cstring>

#include "src/kernels/cpu/internal/vec8f.h"

namespace relite::cpu {
namespace {

// Depth of one pass over K: the 16-wide weight panel of one pass (16 KiB)
// stays in L1 while the row block streams past it.
constexpr int kMaxDepthBlock = kGemmMaxSegmentedDepth;
// Rows of A per pass over a weight panel (their depth block stays in L2).
constexpr int kRowBlock = 72;
// The largest register tile of any ISA (the partial-panel tile buffer).
constexpr int kMaxTileRows = 12;

int PanelWidth(int n, int n0) { return n - n0 > 8 ? kGemmPanelWidth : 8; }

int CeilDiv(int64_t a, int64_t b) { return static_cast<int>((a + b - 1) / b); }
int RoundUp(int a, int b) { return CeilDiv(a, b) * b; }

}  // namespace

void AlignedFloatBuffer::Resize(size_t count) {
  if (count == size_ && data_ != nullptr) return;
  const size_t bytes = std::max<size_t>(64, (count * sizeof(float) + 63) / 64 * 64);
  data_.reset(static_cast<float*>(std::aligned_alloc(64, bytes)));
  size_ = data_ != nullptr ? count : 0;
}

size_t PackedWeightsSize(int n, int k) {
  return static_cast<size_t>(RoundUp(std::max(n, 0), 8)) * static_cast<size_t>(std::max(k, 0));
}

void PackWeights(const float* w, int n, int k, size_t row_stride, float* packed) {
  for (int n0 = 0; n0 < n; n0 += kGemmPanelWidth) {
    const int width = PanelWidth(n, n0);
    const int valid = std::min(width, n - n0);
    float* panel = packed + static_cast<size_t>(n0) * k;
    for (int j = 0; j < width; ++j) {
      if (j < valid) {
        const float* row = w + static_cast<size_t>(n0 + j) * row_stride;
        for (int i = 0; i < k; ++i) panel[static_cast<size_t>(i) * width + j] = row[i];
      } else {
        for (int i = 0; i < k; ++i) panel[static_cast<size_t>(i) * width + j] = 0.f;
      }
    }
  }
}

namespace {

// dst[0, valid) = src[0, valid), then zeros up to dst_width: a partial
// panel's row between C and the local tile, without a library call per row.
inline void CopyColumns(const float* src, float* dst, int valid, int dst_width) {
  int j = 0;
  for (; j + 8 <= valid; j += 8) Store8(dst + j, Load8(src + j));
  for (; j < valid; ++j) dst[j] = src[j];
  for (; j < dst_width; ++j) dst[j] = 0.f;
}

// The tile's row (a full panel width, readable past `valid`) into C.
inline void StoreColumns(const float* tile_row, float* c_row, int valid) {
  int j = 0;
  for (; j + 8 <= valid; j += 8) Store8(c_row + j, Load8(tile_row + j));
  if (j < valid) StoreFirst(c_row + j, Load8(tile_row + j), valid - j);
}

// C tile rows [r0, r0 + rows), columns [n0, n0 + cols) are final but for the
// residual and the clamp; the tile is still in L1.
void AddResidualAndClamp(const GemmEpilogue& e, int r0, int rows, int n0, int cols, float* c_tile, size_t ldc) {
  const int res_end = std::clamp(e.residual_columns - n0, 0, cols);
  Kernels().add_residual_clamp_f32(rows, cols, res_end, e.residual + static_cast<size_t>(r0) * e.residual_stride + n0,
                                   e.residual_stride, e.min, e.max, c_tile, ldc);
}

}  // namespace

namespace {

// One pass over depth steps [k0, k0 + depth.count * depth.length) of every
// row and of columns [n_begin, n_end): `a` points at row 0's step k0.
void GemmPass(int m, int n, int k, int k0, const GemmSegments& depth, bool first, bool last, const float* a, size_t lda,
              const float* packed, const GemmEpilogue& epilogue, float* c, size_t ldc, int n_begin, int n_end) {
  // A residual covering a whole, fully valid panel is added by the
  // microkernel; otherwise (a channel-padded operand ending inside the panel,
  // or a partial panel's local tile) it is added after, and the microkernel
  // leaves the clamp to AddResidualAndClamp.
  const bool residual = epilogue.residual != nullptr;
  const CpuKernels& kernels = Kernels();
  const int tile_rows = std::min(kernels.gemm_f32_tile_rows, kMaxTileRows);
  for (int m0 = 0; m0 < m; m0 += kRowBlock) {
    const int m1 = std::min(m, m0 + kRowBlock);
    for (int n0 = n_begin; n0 < n_end; n0 += kGemmPanelWidth) {
      const int width = PanelWidth(n, n0);
      const int valid = std::min(width, n_end - n0);
      const float* panel = packed + static_cast<size_t>(n0) * k + static_cast<size_t>(k0) * width;
      const float* bias = first && epilogue.bias != nullptr ? epilogue.bias + n0 : nullptr;
      const int rows = m1 - m0;
      const float* a_block = a + static_cast<size_t>(m0) * lda;
      float* c_block = c + static_cast<size_t>(m0) * ldc + n0;
      const float* block_residual =
          residual && last ? epilogue.residual + static_cast<size_t>(m0) * epilogue.residual_stride + n0 : nullptr;
      // Two full panels at once where the ISA has the registers for it
      // (n_end <= n, so the second is 16 wide too), their residual, if any,
      // added inside: it must cover both.
      // Four full panels at once likewise (AVX-512), then pairs.
      if (kernels.gemm_f32_panel_quad != nullptr && n0 + 4 * kGemmPanelWidth <= n_end &&
          (!residual || n0 + 4 * kGemmPanelWidth <= epilogue.residual_columns)) {
        kernels.gemm_f32_panel_quad(rows, depth, a_block, lda, panel, static_cast<size_t>(kGemmPanelWidth) * k, c_block,
                                    ldc, bias, !first, last, epilogue.min, epilogue.max, block_residual,
                                    epilogue.residual_stride);
        n0 += 3 * kGemmPanelWidth;
        continue;
      }
      if (kernels.gemm_f32_panel_pair != nullptr && n0 + 2 * kGemmPanelWidth <= n_end &&
          (!residual || n0 + 2 * kGemmPanelWidth <= epilogue.residual_columns)) {
        kernels.gemm_f32_panel_pair(rows, depth, a_block, lda, panel, static_cast<size_t>(kGemmPanelWidth) * k, c_block,
                                    ldc, bias, !first, last, epilogue.min, epilogue.max, block_residual,
                                    epilogue.residual_stride);
        n0 += kGemmPanelWidth;
        continue;
      }
      // A full panel and a full 8-column last panel (24 columns left) at once (AVX-512).
      if (kernels.gemm_f32_panel_wide_narrow != nullptr && width == kGemmPanelWidth && n0 + kGemmPanelWidth + 8 == n &&
          n_end == n && (!residual || n <= epilogue.residual_columns)) {
        const float* narrow = packed + static_cast<size_t>(n0 + kGemmPanelWidth) * k + static_cast<size_t>(k0) * 8;
        kernels.gemm_f32_panel_wide_narrow(rows, depth, a_block, lda, panel, static_cast<size_t>(narrow - panel),
                                           c_block, ldc, bias, !first, last, epilogue.min, epilogue.max, block_residual,
                                           epilogue.residual_stride);
        n0 += kGemmPanelWidth;
        continue;
      }
      float bias_padded[kGemmPanelWidth];
      if (bias != nullptr && valid < width) {
        std::copy(bias, bias + valid, bias_padded);
        std::fill(bias_padded + valid, bias_padded + width, 0.f);
        bias = bias_padded;
      }
      const bool residual_inside = residual && valid == width && n0 + width <= epilogue.residual_columns;
      const bool residual_after = residual && !residual_inside;
      const float kernel_min = residual_after ? -__builtin_inff() : epilogue.min;
      const float kernel_max = residual_after ? __builtin_inff() : epilogue.max;
      if (valid == width) {
        kernels.gemm_f32_panel(rows, width, depth, a_block, lda, panel, c_block, ldc, bias, !first, last, kernel_min,
                               kernel_max, residual_inside ? block_residual : nullptr, epilogue.residual_stride);
        if (residual_after && last) AddResidualAndClamp(epilogue, m0, rows, n0, valid, c_block, ldc);
        continue;
      }
      // A partial panel: C read and written masked where the ISA's layout
      // allows, else through a full-width local tile. The kernel
      // reads the tile only when accumulating; the padding columns then
      // hold zeros and their results are dropped.
      if (kernels.gemm_f32_panel_partial(rows, width, valid, depth, a_block, lda, panel, c_block, ldc, bias, !first,
                                         last, kernel_min, kernel_max)) {
        if (residual_after && last) AddResidualAndClamp(epilogue, m0, rows, n0, valid, c_block, ldc);
        continue;
      }
      float tile[kMaxTileRows * kGemmPanelWidth];
      for (int r0 = 0; r0 < rows; r0 += tile_rows) {
        const int tile_height = std::min(tile_rows, rows - r0);
        float* c_tile = c_block + static_cast<size_t>(r0) * ldc;
        if (!first) {
          for (int r = 0; r < tile_height; ++r) CopyColumns(c_tile + r * ldc, tile + r * width, valid, width);
        }
        kernels.gemm_f32_panel(tile_height, width, depth, a_block + static_cast<size_t>(r0) * lda, lda, panel, tile,
                               width, bias, !first, last, kernel_min, kernel_max, nullptr, 0);
        for (int r = 0; r < tile_height; ++r) StoreColumns(tile + r * width, c_tile + r * ldc, valid);
        if (residual_after && last) AddResidualAndClamp(epilogue, m0 + r0, tile_height, n0, valid, c_tile, ldc);
      }
    }
  }
}

// C = the activated bias: a product with nothing to sum.
void StoreActivatedBias(int m, const GemmEpilogue& epilogue, float* c, size_t ldc, int n_begin, int n_end) {
  for (int i = 0; i < m; ++i) {
    for (int j = n_begin; j < n_end; ++j) {
      const float v = epilogue.bias != nullptr ? epilogue.bias[j] : 0.f;
      c[static_cast<size_t>(i) * ldc + j] = std::min(std::max(v, epilogue.min), epilogue.max);
    }
  }
}

}  // namespace

void GemmPacked(int m, int n, int k, const float* a, size_t lda, const float* packed, const GemmEpilogue& epilogue,
                float* c, size_t ldc, int n_begin, int n_end) {
  n_end = std::min(n_end, n);
  if (m <= 0 || n_end <= n_begin) return;
  if (k <= 0) {
    StoreActivatedBias(m, epilogue, c, ldc, n_begin, n_end);
    return;
  }
  const int depth_blocks = CeilDiv(k, kMaxDepthBlock);
  const int depth_step = CeilDiv(k, depth_blocks);
  for (int k0 = 0; k0 < k; k0 += depth_step) {
    const int depth = std::min(depth_step, k - k0);
    GemmPass(m, n, k, k0, GemmSegments{1, depth, 0}, k0 == 0, k0 + depth == k, a + k0, lda, packed, epilogue, c, ldc,
             n_begin, n_end);
  }
}

void GemmPackedSegmented(int m, int n, const float* a, size_t lda, const GemmSegments& segments, const float* packed,
                         const GemmEpilogue& epilogue, float* c, size_t ldc, int n_begin, int n_end) {
  n_end = std::min(n_end, n);
  if (m <= 0 || n_end <= n_begin) return;
  const int k = segments.count * segments.length;
  if (k <= 0) {
    StoreActivatedBias(m, epilogue, c, ldc, n_begin, n_end);
    return;
  }
  GemmPass(m, n, k, 0, segments, true, true, a, lda, packed, epilogue, c, ldc, n_begin, n_end);
}

void GemmPartition::Task(int t, int* m_begin, int* m_end, int* n_begin, int* n_end) const {
  const int mt = t / n_tasks;
  const int nt = t % n_tasks;
  // Row blocks of nearly equal height (at most rows_per_task): 49 rows in
  // blocks of 12 left a one-row block, which costs two thirds of a full
  // register tile; 10, 10, 10, 10, 9 cost a tile each.
  *m_begin = static_cast<int>(int64_t{m} * mt / m_tasks);
  *m_end = static_cast<int>(int64_t{m} * (mt + 1) / m_tasks);
  *n_begin = nt * cols_per_task;
  *n_end = std::min(n, *n_begin + cols_per_task);
}

GemmPartition PartitionGemm(int m, int n, int k, int num_threads, int max_rows_per_task, int tasks_per_thread) {
  GemmPartition p;
  p.m = std::max(m, 0);
  p.n = std::max(n, 0);
  // Row blocks in whole register tiles of the active ISA.
  const int tile = Kernels().gemm_f32_tile_rows;
  const int max_rows = std::max(tile, max_rows_per_task / tile * tile);
  const int panels = std::max(1, CeilDiv(p.n, kGemmPanelWidth));
  // Tiny products stay whole.
  const int64_t work = static_cast<int64_t>(p.m) * p.n * std::max(k, 1);
  const int target = (num_threads <= 1 || work < (int64_t{1} << 16)) ? 1 : std::max(1, tasks_per_thread) * num_threads;
  p.rows_per_task =
      std::min(max_rows, std::max(tile, RoundUp(CeilDiv(std::max(p.m, 1), target), tile)));
  p.m_tasks = std::max(1, CeilDiv(p.m, p.rows_per_task));
  int n_tasks = 1;
  if (p.m_tasks < target) n_tasks = std::min(panels, CeilDiv(target, p.m_tasks));
  p.cols_per_task = CeilDiv(panels, n_tasks) * kGemmPanelWidth;
  p.n_tasks = std::max(1, CeilDiv(p.n, p.cols_per_task));
  return p;
}

namespace {

struct GemmJob {
  GemmPartition partition;
  int k;
  const float* a;
  size_t lda;
  const float* packed;
  GemmEpilogue epilogue;
  float* c;
  size_t ldc;

  void Run(int64_t begin, int64_t end) const {
    for (int64_t t = begin; t < end; ++t) {
      int m0, m1, n0, n1;
      partition.Task(static_cast<int>(t), &m0, &m1, &n0, &n1);
      GemmPacked(m1 - m0, partition.n, k, a + static_cast<size_t>(m0) * lda, lda, packed, epilogue,
                 c + static_cast<size_t>(m0) * ldc, ldc, n0, n1);
    }
  }
};

struct GemvJob {
  int k;
  const float* w;
  size_t row_stride;
  const float* x;
  GemmEpilogue epilogue;
  float* y;
  int n;
};

constexpr int kGemvRowsPerItem = 4;

}  // namespace

void ParallelGemmPacked(KernelContext& ctx, int m, int n, int k, const float* a, size_t lda, const float* packed,
                        const GemmEpilogue& epilogue, float* c, size_t ldc) {
  const GemmJob job{PartitionGemm(m, n, k, ctx.num_threads(), 4096, kFloatGemmTasksPerThread), k, a, lda, packed,
                    epilogue, c, ldc};
  if (job.partition.num_tasks() <= 1) {
    job.Run(0, job.partition.num_tasks());
    return;
  }
  ctx.ParallelFor(job.partition.num_tasks(), 1, [&job](int64_t begin, int64_t end) { job.Run(begin, end); });
}

void Gemv(int k, const float* w, size_t row_stride, const float* x, const GemmEpilogue& epilogue, float* y, int n_begin,
          int n_end) {
  Kernels().gemv_f32(k, w, row_stride, x, epilogue.bias, epilogue.min, epilogue.max, y, n_begin, n_end);
}

void ParallelGemv(KernelContext& ctx, int n, int k, const float* w, size_t row_stride, const float* x,
                  const GemmEpilogue& epilogue, float* y) {
  const GemvJob job{k, w, row_stride, x, epilogue, y, n};
  const int64_t items = CeilDiv(n, kGemvRowsPerItem);
  // At least ~32K multiply-adds per chunk, or the pool overhead dominates.
  const int64_t min_chunk = std::max<int64_t>(1, (int64_t{1} << 15) / (int64_t{kGemvRowsPerItem} * std::max(k, 1)));
  auto run = [&job](int64_t begin, int64_t end) {
    const int n0 = static_cast<int>(begin * kGemvRowsPerItem);
    const int n1 = std::min(job.n, static_cast<int>(end * kGemvRowsPerItem));
    Gemv(job.k, job.w, job.row_stride, job.x, job.epilogue, job.y, n0, n1);
  };
  if (items <= min_chunk || ctx.num_threads() <= 1) {
    run(0, items);
    return;
  }
  ctx.ParallelFor(items, min_chunk, run);
}

}  // namespace relite::cpu
