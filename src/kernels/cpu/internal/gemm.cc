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

// One kGemmTileRows x (8 * kVectors) tile of C over the depth steps of
// `depth` (segment s of row r starts at a + r * lda + s * depth.stride).
// `b` is the weight panel at the block's first k (8 * kVectors floats per k).
// On the first depth block the accumulators start from the bias (or zero),
// later blocks add to what C holds; the last block applies the clamp.
template <int kRows, int kVectors>
inline __attribute__((always_inline)) void MicroTile(const GemmSegments& depth, const float* a, size_t lda,
                                                     const float* b, float* c, size_t ldc, const float* bias,
                                                     bool accumulate, bool finalize, float lo, float hi) {
  v8f acc[kRows][kVectors];
  if (accumulate) {
#pragma GCC unroll 8
    for (int r = 0; r < kRows; ++r) {
#pragma GCC unroll 2
      for (int v = 0; v < kVectors; ++v) acc[r][v] = Load8(c + r * ldc + 8 * v);
    }
  } else {
#pragma GCC unroll 2
    for (int v = 0; v < kVectors; ++v) {
      const v8f init = bias != nullptr ? Load8(bias + 8 * v) : v8f{};
#pragma GCC unroll 8
      for (int r = 0; r < kRows; ++r) acc[r][v] = init;
    }
  }
  const int length = depth.length;
  for (int seg = 0; seg < depth.count; ++seg, a += depth.stride) {
    const float* rows[kRows];
#pragma GCC unroll 8
    for (int r = 0; r < kRows; ++r) rows[r] = a + r * lda;

    for (int k = 0; k < length; ++k) {
      v8f w[kVectors];
#pragma GCC unroll 2
      for (int v = 0; v < kVectors; ++v) w[v] = Load8(b + 8 * v);
      b += 8 * kVectors;
#pragma GCC unroll 8
      for (int r = 0; r < kRows; ++r) {
        const float x = rows[r][k];
#pragma GCC unroll 2
        for (int v = 0; v < kVectors; ++v) acc[r][v] += x * w[v];
      }
    }
  }

  if (finalize) {
    const v8f vlo = Splat8(lo);
    const v8f vhi = Splat8(hi);
#pragma GCC unroll 8
    for (int r = 0; r < kRows; ++r) {
#pragma GCC unroll 2
      for (int v = 0; v < kVectors; ++v) acc[r][v] = Clamp8(acc[r][v], vlo, vhi);
    }
  }
#pragma GCC unroll 8
  for (int r = 0; r < kRows; ++r) {
#pragma GCC unroll 2
    for (int v = 0; v < kVectors; ++v) Store8(c + r * ldc + 8 * v, acc[r][v]);
  }
}

template <int kRows, int kVectors>
void MicroKernel(const GemmSegments& depth, const float* a, size_t lda, const float* b, float* c, size_t ldc, const float* bias,
                 bool accumulate, bool finalize, float lo, float hi) {
  MicroTile<kRows, kVectors>(depth, a, lda, b, c, ldc, bias, accumulate, finalize, lo, hi);
}

// `tiles` full kGemmTileRows-row tiles down one panel in one call: with a
// short K (a 1x1 convolution over 16 channels is ~100 cycles a tile) a call
// per tile, with its eleven arguments, costs a noticeable share.
template <int kVectors>
void MicroKernelTiles(int tiles, const GemmSegments& depth, const float* a, size_t lda, const float* b, float* c, size_t ldc,
                      const float* bias, bool accumulate, bool finalize, float lo, float hi) {
  for (int t = 0; t < tiles; ++t) {
    MicroTile<kGemmTileRows, kVectors>(depth, a, lda, b, c, ldc, bias, accumulate, finalize, lo, hi);
    a += kGemmTileRows * lda;
    c += kGemmTileRows * ldc;
  }
}

using MicroKernelFn = void (*)(const GemmSegments&, const float*, size_t, const float*, float*, size_t, const float*, bool, bool, float,
                               float);

// [rows - 1][vectors - 1]
constexpr MicroKernelFn kMicroKernels[kGemmTileRows][2] = {
    {MicroKernel<1, 1>, MicroKernel<1, 2>}, {MicroKernel<2, 1>, MicroKernel<2, 2>},
    {MicroKernel<3, 1>, MicroKernel<3, 2>}, {MicroKernel<4, 1>, MicroKernel<4, 2>},
    {MicroKernel<5, 1>, MicroKernel<5, 2>}, {MicroKernel<6, 1>, MicroKernel<6, 2>},
};

using MicroKernelTilesFn = void (*)(int, const GemmSegments&, const float*, size_t, const float*, float*, size_t, const float*, bool,
                                    bool, float, float);
constexpr MicroKernelTilesFn kMicroKernelTiles[2] = {MicroKernelTiles<1>, MicroKernelTiles<2>};

int PanelWidth(int n, int n0) { return n - n0 > 8 ? kGemmPanelWidth : 8; }

int CeilDiv(int64_t a, int64_t b) { return static_cast<int>((a + b - 1) / b); }
int RoundUp(int a, int b) { return CeilDiv(a, b) * b; }

float HorizontalSum(v8f v) {
  float lanes[8];
  std::memcpy(lanes, &v, sizeof(lanes));
  return ((lanes[0] + lanes[4]) + (lanes[1] + lanes[5])) + ((lanes[2] + lanes[6]) + (lanes[3] + lanes[7]));
}

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
  const v8f vlo = Splat8(e.min), vhi = Splat8(e.max);
  for (int r = 0; r < rows; ++r) {
    float* crow = c_tile + static_cast<size_t>(r) * ldc;
    const float* rrow = e.residual + static_cast<size_t>(r0 + r) * e.residual_stride + n0;
    int j = 0;
    for (; j + 8 <= res_end; j += 8) Store8(crow + j, Clamp8(Load8(crow + j) + Load8(rrow + j), vlo, vhi));
    for (; j < res_end; ++j) crow[j] = std::min(std::max(crow[j] + rrow[j], e.min), e.max);
    for (; j < cols; ++j) crow[j] = std::min(std::max(crow[j], e.min), e.max);
  }
}

}  // namespace

namespace {

// One pass over depth steps [k0, k0 + depth.count * depth.length) of every
// row and of columns [n_begin, n_end): `a` points at row 0's step k0.
void GemmPass(int m, int n, int k, int k0, const GemmSegments& depth, bool first, bool last, const float* a, size_t lda,
              const float* packed, const GemmEpilogue& epilogue, float* c, size_t ldc, int n_begin, int n_end) {
  // With a residual the microkernel leaves the clamp to AddResidualAndClamp.
  const bool residual = epilogue.residual != nullptr;
  const float kernel_min = residual ? -__builtin_inff() : epilogue.min;
  const float kernel_max = residual ? __builtin_inff() : epilogue.max;
  for (int m0 = 0; m0 < m; m0 += kRowBlock) {
    const int m1 = std::min(m, m0 + kRowBlock);
    for (int n0 = n_begin; n0 < n_end; n0 += kGemmPanelWidth) {
      const int width = PanelWidth(n, n0);
      const int valid = std::min(width, n_end - n0);
      const int vectors = width / 8;
      const float* panel = packed + static_cast<size_t>(n0) * k + static_cast<size_t>(k0) * width;
      const float* bias = first && epilogue.bias != nullptr ? epilogue.bias + n0 : nullptr;
      float bias_padded[kGemmPanelWidth];
      if (bias != nullptr && valid < width) {
        std::copy(bias, bias + valid, bias_padded);
        std::fill(bias_padded + valid, bias_padded + width, 0.f);
        bias = bias_padded;
      }
      int r0 = m0;
      if (valid == width) {
        const int tiles = (m1 - m0) / kGemmTileRows;
        kMicroKernelTiles[vectors - 1](tiles, depth, a + static_cast<size_t>(m0) * lda, lda, panel,
                                       c + static_cast<size_t>(m0) * ldc + n0, ldc, bias, !first, last, kernel_min,
                                       kernel_max);
        r0 += tiles * kGemmTileRows;
        if (residual && last && tiles > 0) {
          AddResidualAndClamp(epilogue, m0, r0 - m0, n0, valid, c + static_cast<size_t>(m0) * ldc + n0, ldc);
        }
      }
      for (; r0 < m1; r0 += kGemmTileRows) {
        const int rows = std::min(kGemmTileRows, m1 - r0);
        const MicroKernelFn kernel = kMicroKernels[rows - 1][vectors - 1];
        const float* a_tile = a + static_cast<size_t>(r0) * lda;
        float* c_tile = c + static_cast<size_t>(r0) * ldc + n0;
        if (valid == width) {
          kernel(depth, a_tile, lda, panel, c_tile, ldc, bias, !first, last, kernel_min, kernel_max);
          if (residual && last) AddResidualAndClamp(epilogue, r0, rows, n0, valid, c_tile, ldc);
          continue;
        }
        // A partial panel goes through a full-width local tile. The kernel
        // reads the tile only when accumulating; the padding columns then
        // hold zeros and their results are dropped.
        float tile[kGemmTileRows * kGemmPanelWidth];
        if (!first) {
          for (int r = 0; r < rows; ++r) CopyColumns(c_tile + r * ldc, tile + r * width, valid, width);
        }
        kernel(depth, a_tile, lda, panel, tile, width, bias, !first, last, kernel_min, kernel_max);
        for (int r = 0; r < rows; ++r) StoreColumns(tile + r * width, c_tile + r * ldc, valid);
        if (residual && last) AddResidualAndClamp(epilogue, r0, rows, n0, valid, c_tile, ldc);
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
  *m_begin = mt * rows_per_task;
  *m_end = std::min(m, *m_begin + rows_per_task);
  *n_begin = nt * cols_per_task;
  *n_end = std::min(n, *n_begin + cols_per_task);
}

GemmPartition PartitionGemm(int m, int n, int k, int num_threads, int max_rows_per_task) {
  GemmPartition p;
  p.m = std::max(m, 0);
  p.n = std::max(n, 0);
  const int max_rows = std::max(kGemmTileRows, max_rows_per_task / kGemmTileRows * kGemmTileRows);
  const int panels = std::max(1, CeilDiv(p.n, kGemmPanelWidth));
  // Enough tasks per thread to even out uneven chunks; tiny products stay whole.
  const int64_t work = static_cast<int64_t>(p.m) * p.n * std::max(k, 1);
  const int target = (num_threads <= 1 || work < (int64_t{1} << 16)) ? 1 : 4 * num_threads;
  p.rows_per_task =
      std::min(max_rows, std::max(kGemmTileRows, RoundUp(CeilDiv(std::max(p.m, 1), target), kGemmTileRows)));
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
  const GemmJob job{PartitionGemm(m, n, k, ctx.num_threads(), 4096), k, a, lda, packed, epilogue, c, ldc};
  if (job.partition.num_tasks() <= 1) {
    job.Run(0, job.partition.num_tasks());
    return;
  }
  ctx.ParallelFor(job.partition.num_tasks(), 1, [&job](int64_t begin, int64_t end) { job.Run(begin, end); });
}

void Gemv(int k, const float* w, size_t row_stride, const float* x, const GemmEpilogue& epilogue, float* y, int n_begin,
          int n_end) {
  const float lo = epilogue.min;
  const float hi = epilogue.max;
  int i = n_begin;
  // Four rows at a time share each load of x; two accumulators per row hide
  // the FMA latency.
  for (; i + kGemvRowsPerItem <= n_end; i += kGemvRowsPerItem) {
    const float* w0 = w + static_cast<size_t>(i) * row_stride;
    const float* w1 = w0 + row_stride;
    const float* w2 = w1 + row_stride;
    const float* w3 = w2 + row_stride;
    v8f a0 = {}, a1 = {}, a2 = {}, a3 = {}, b0 = {}, b1 = {}, b2 = {}, b3 = {};
    int j = 0;
    for (; j + 16 <= k; j += 16) {
      const v8f x0 = Load8(x + j);
      const v8f x1 = Load8(x + j + 8);
      a0 += Load8(w0 + j) * x0;
      b0 += Load8(w0 + j + 8) * x1;
      a1 += Load8(w1 + j) * x0;
      b1 += Load8(w1 + j + 8) * x1;
      a2 += Load8(w2 + j) * x0;
      b2 += Load8(w2 + j + 8) * x1;
      a3 += Load8(w3 + j) * x0;
      b3 += Load8(w3 + j + 8) * x1;
    }
    for (; j + 8 <= k; j += 8) {
      const v8f x0 = Load8(x + j);
      a0 += Load8(w0 + j) * x0;
      a1 += Load8(w1 + j) * x0;
      a2 += Load8(w2 + j) * x0;
      a3 += Load8(w3 + j) * x0;
    }
    float s0 = HorizontalSum(a0 + b0), s1 = HorizontalSum(a1 + b1);
    float s2 = HorizontalSum(a2 + b2), s3 = HorizontalSum(a3 + b3);
    for (; j < k; ++j) {
      s0 += w0[j] * x[j];
      s1 += w1[j] * x[j];
      s2 += w2[j] * x[j];
      s3 += w3[j] * x[j];
    }
    if (epilogue.bias != nullptr) {
      s0 += epilogue.bias[i];
      s1 += epilogue.bias[i + 1];
      s2 += epilogue.bias[i + 2];
      s3 += epilogue.bias[i + 3];
    }
    y[i] = std::min(std::max(s0, lo), hi);
    y[i + 1] = std::min(std::max(s1, lo), hi);
    y[i + 2] = std::min(std::max(s2, lo), hi);
    y[i + 3] = std::min(std::max(s3, lo), hi);
  }
  for (; i < n_end; ++i) {
    const float* wr = w + static_cast<size_t>(i) * row_stride;
    v8f a0 = {}, b0 = {};
    int j = 0;
    for (; j + 16 <= k; j += 16) {
      a0 += Load8(wr + j) * Load8(x + j);
      b0 += Load8(wr + j + 8) * Load8(x + j + 8);
    }
    for (; j + 8 <= k; j += 8) a0 += Load8(wr + j) * Load8(x + j);
    float s = HorizontalSum(a0 + b0);
    for (; j < k; ++j) s += wr[j] * x[j];
    if (epilogue.bias != nullptr) s += epilogue.bias[i];
    y[i] = std::min(std::max(s, lo), hi);
  }
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
