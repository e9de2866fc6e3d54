// TRANSPOSE: output dimension j is input dimension perm[j] (constant perm,
// rank up to 8). Size-1 dimensions are dropped and dimensions that stay
// adjacent are merged first, so most real permutations become either a copy
// of contiguous rows (innermost dimension kept) or a batch of 2-D transposes
// done in cache-sized tiles of register-transposed blocks (SSE2/AVX2 for
// 1-, 2-, 4- and 8-byte elements).
#include <algorithm>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#if defined(__AVX2__)
#include <immintrin.h>
#endif

#include "src/kernels/cpu/internal/data_movement.h"
#include "src/kernels/cpu/kernels.h"

namespace relite::cpu {
namespace {

// Rows of the 2-D transpose handled by one work item.
constexpr int64_t kStripRows = 32;
// Tile edge of the 2-D transpose (elements).
constexpr int64_t kTile = 32;

// dst[i * dst_stride + j] = src[i + j * src_stride] for i < rows, j < cols,
// with N-byte elements; strides in elements.
template <size_t N>
void TransposeTileGeneric(const uint8_t* src, int64_t src_stride, uint8_t* dst, int64_t dst_stride, int64_t rows,
                          int64_t cols) {
  constexpr int64_t n = static_cast<int64_t>(N);
  for (int64_t i = 0; i < rows; ++i) {
    uint8_t* d = dst + i * dst_stride * n;
    const uint8_t* s = src + i * n;
    for (int64_t j = 0; j < cols; ++j) std::memcpy(d + j * n, s + j * src_stride * n, N);
  }
}

#if defined(__AVX2__)
// Register transposes of one square block: dst row i = src column i, with
// strides in elements. kBlock is the block edge.
template <size_t N>
struct BlockTranspose {
  static constexpr int64_t kBlock = 0;  // no kernel: generic loops only
};

template <>
struct BlockTranspose<1> {
  static constexpr int64_t kBlock = 8;
  static void Run(const uint8_t* src, int64_t ss, uint8_t* dst, int64_t ds) {
    __m128i r[8];
    for (int k = 0; k < 8; ++k) r[k] = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(src + k * ss));
    const __m128i t0 = _mm_unpacklo_epi8(r[0], r[1]);
    const __m128i t1 = _mm_unpacklo_epi8(r[2], r[3]);
    const __m128i t2 = _mm_unpacklo_epi8(r[4], r[5]);
    const __m128i t3 = _mm_unpacklo_epi8(r[6], r[7]);
    const __m128i u0 = _mm_unpacklo_epi16(t0, t1);  // columns 0-3 of rows 0-3
    const __m128i u1 = _mm_unpackhi_epi16(t0, t1);  // columns 4-7 of rows 0-3
    const __m128i u2 = _mm_unpacklo_epi16(t2, t3);
    const __m128i u3 = _mm_unpackhi_epi16(t2, t3);
    const __m128i c01 = _mm_unpacklo_epi32(u0, u2);
    const __m128i c23 = _mm_unpackhi_epi32(u0, u2);
    const __m128i c45 = _mm_unpacklo_epi32(u1, u3);
    const __m128i c67 = _mm_unpackhi_epi32(u1, u3);
    const __m128i cols[4] = {c01, c23, c45, c67};
    for (int k = 0; k < 4; ++k) {
      _mm_storel_epi64(reinterpret_cast<__m128i*>(dst + (2 * k) * ds), cols[k]);
      _mm_storel_epi64(reinterpret_cast<__m128i*>(dst + (2 * k + 1) * ds), _mm_unpackhi_epi64(cols[k], cols[k]));
    }
  }
};

template <>
struct BlockTranspose<2> {
  static constexpr int64_t kBlock = 8;
  static void Run(const uint8_t* src, int64_t ss, uint8_t* dst, int64_t ds) {
    __m128i r[8];
    for (int k = 0; k < 8; ++k) r[k] = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + 2 * k * ss));
    const __m128i t0 = _mm_unpacklo_epi16(r[0], r[1]);
    const __m128i t1 = _mm_unpackhi_epi16(r[0], r[1]);
    const __m128i t2 = _mm_unpacklo_epi16(r[2], r[3]);
    const __m128i t3 = _mm_unpackhi_epi16(r[2], r[3]);
    const __m128i t4 = _mm_unpacklo_epi16(r[4], r[5]);
    const __m128i t5 = _mm_unpackhi_epi16(r[4], r[5]);
    const __m128i t6 = _mm_unpacklo_epi16(r[6], r[7]);
    const __m128i t7 = _mm_unpackhi_epi16(r[6], r[7]);
    const __m128i u0 = _mm_unpacklo_epi32(t0, t2);  // columns 0-1 of rows 0-3
    const __m128i u1 = _mm_unpackhi_epi32(t0, t2);  // columns 2-3
    const __m128i u2 = _mm_unpacklo_epi32(t1, t3);  // columns 4-5
    const __m128i u3 = _mm_unpackhi_epi32(t1, t3);  // columns 6-7
    const __m128i u4 = _mm_unpacklo_epi32(t4, t6);  // the same for rows 4-7
    const __m128i u5 = _mm_unpackhi_epi32(t4, t6);
    const __m128i u6 = _mm_unpacklo_epi32(t5, t7);
    const __m128i u7 = _mm_unpackhi_epi32(t5, t7);
    const __m128i lo[4] = {u0, u1, u2, u3};
    const __m128i hi[4] = {u4, u5, u6, u7};
    for (int k = 0; k < 4; ++k) {
      _mm_storeu_si128(reinterpret_cast<__m128i*>(dst + 2 * (2 * k) * ds), _mm_unpacklo_epi64(lo[k], hi[k]));
      _mm_storeu_si128(reinterpret_cast<__m128i*>(dst + 2 * (2 * k + 1) * ds), _mm_unpackhi_epi64(lo[k], hi[k]));
    }
  }
};

template <>
struct BlockTranspose<4> {
  static constexpr int64_t kBlock = 8;
  static void Run(const uint8_t* src_bytes, int64_t ss, uint8_t* dst_bytes, int64_t ds) {
    const auto* src = reinterpret_cast<const float*>(src_bytes);
    auto* dst = reinterpret_cast<float*>(dst_bytes);
    const __m256 r0 = _mm256_loadu_ps(src + 0 * ss);
    const __m256 r1 = _mm256_loadu_ps(src + 1 * ss);
    const __m256 r2 = _mm256_loadu_ps(src + 2 * ss);
    const __m256 r3 = _mm256_loadu_ps(src + 3 * ss);
    const __m256 r4 = _mm256_loadu_ps(src + 4 * ss);
    const __m256 r5 = _mm256_loadu_ps(src + 5 * ss);
    const __m256 r6 = _mm256_loadu_ps(src + 6 * ss);
    const __m256 r7 = _mm256_loadu_ps(src + 7 * ss);
    // Interleave pairs of rows, then pairs of pairs, then swap 128-bit halves.
    const __m256 t0 = _mm256_unpacklo_ps(r0, r1);
    const __m256 t1 = _mm256_unpackhi_ps(r0, r1);
    const __m256 t2 = _mm256_unpacklo_ps(r2, r3);
    const __m256 t3 = _mm256_unpackhi_ps(r2, r3);
    const __m256 t4 = _mm256_unpacklo_ps(r4, r5);
    const __m256 t5 = _mm256_unpackhi_ps(r4, r5);
    const __m256 t6 = _mm256_unpacklo_ps(r6, r7);
    const __m256 t7 = _mm256_unpackhi_ps(r6, r7);
    const __m256 s0 = _mm256_shuffle_ps(t0, t2, _MM_SHUFFLE(1, 0, 1, 0));
    const __m256 s1 = _mm256_shuffle_ps(t0, t2, _MM_SHUFFLE(3, 2, 3, 2));
    const __m256 s2 = _mm256_shuffle_ps(t1, t3, _MM_SHUFFLE(1, 0, 1, 0));
    const __m256 s3 = _mm256_shuffle_ps(t1, t3, _MM_SHUFFLE(3, 2, 3, 2));
    const __m256 s4 = _mm256_shuffle_ps(t4, t6, _MM_SHUFFLE(1, 0, 1, 0));
    const __m256 s5 = _mm256_shuffle_ps(t4, t6, _MM_SHUFFLE(3, 2, 3, 2));
    const __m256 s6 = _mm256_shuffle_ps(t5, t7, _MM_SHUFFLE(1, 0, 1, 0));
    const __m256 s7 = _mm256_shuffle_ps(t5, t7, _MM_SHUFFLE(3, 2, 3, 2));
    _mm256_storeu_ps(dst + 0 * ds, _mm256_permute2f128_ps(s0, s4, 0x20));
    _mm256_storeu_ps(dst + 1 * ds, _mm256_permute2f128_ps(s1, s5, 0x20));
    _mm256_storeu_ps(dst + 2 * ds, _mm256_permute2f128_ps(s2, s6, 0x20));
    _mm256_storeu_ps(dst + 3 * ds, _mm256_permute2f128_ps(s3, s7, 0x20));
    _mm256_storeu_ps(dst + 4 * ds, _mm256_permute2f128_ps(s0, s4, 0x31));
    _mm256_storeu_ps(dst + 5 * ds, _mm256_permute2f128_ps(s1, s5, 0x31));
    _mm256_storeu_ps(dst + 6 * ds, _mm256_permute2f128_ps(s2, s6, 0x31));
    _mm256_storeu_ps(dst + 7 * ds, _mm256_permute2f128_ps(s3, s7, 0x31));
  }
};

template <>
struct BlockTranspose<8> {
  static constexpr int64_t kBlock = 4;
  static void Run(const uint8_t* src_bytes, int64_t ss, uint8_t* dst_bytes, int64_t ds) {
    const auto* src = reinterpret_cast<const double*>(src_bytes);
    auto* dst = reinterpret_cast<double*>(dst_bytes);
    const __m256d r0 = _mm256_loadu_pd(src + 0 * ss);
    const __m256d r1 = _mm256_loadu_pd(src + 1 * ss);
    const __m256d r2 = _mm256_loadu_pd(src + 2 * ss);
    const __m256d r3 = _mm256_loadu_pd(src + 3 * ss);
    const __m256d t0 = _mm256_unpacklo_pd(r0, r1);  // r0[0] r1[0] r0[2] r1[2]
    const __m256d t1 = _mm256_unpackhi_pd(r0, r1);  // r0[1] r1[1] r0[3] r1[3]
    const __m256d t2 = _mm256_unpacklo_pd(r2, r3);
    const __m256d t3 = _mm256_unpackhi_pd(r2, r3);
    _mm256_storeu_pd(dst + 0 * ds, _mm256_permute2f128_pd(t0, t2, 0x20));
    _mm256_storeu_pd(dst + 1 * ds, _mm256_permute2f128_pd(t1, t3, 0x20));
    _mm256_storeu_pd(dst + 2 * ds, _mm256_permute2f128_pd(t0, t2, 0x31));
    _mm256_storeu_pd(dst + 3 * ds, _mm256_permute2f128_pd(t1, t3, 0x31));
  }
};
#endif

template <size_t N>
void TransposeTile(const uint8_t* src, int64_t src_stride, uint8_t* dst, int64_t dst_stride, int64_t rows,
                   int64_t cols) {
#if defined(__AVX2__)
  constexpr int64_t b = BlockTranspose<N>::kBlock;
  if constexpr (b > 0) {
    constexpr int64_t n = static_cast<int64_t>(N);
    const int64_t rows_b = rows / b * b;
    const int64_t cols_b = cols / b * b;
    for (int64_t j = 0; j < cols_b; j += b) {
      for (int64_t i = 0; i < rows_b; i += b) {
        BlockTranspose<N>::Run(src + (i + j * src_stride) * n, src_stride, dst + (i * dst_stride + j) * n, dst_stride);
      }
    }
    // Right and bottom edges.
    if (cols_b < cols) {
      TransposeTileGeneric<N>(src + cols_b * src_stride * n, src_stride, dst + cols_b * n, dst_stride, rows,
                              cols - cols_b);
    }
    if (rows_b < rows) {
      TransposeTileGeneric<N>(src + rows_b * n, src_stride, dst + rows_b * dst_stride * n, dst_stride, rows - rows_b,
                              cols_b);
    }
    return;
  }
#endif
  TransposeTileGeneric<N>(src, src_stride, dst, dst_stride, rows, cols);
}

// A rows x cols transpose: dst[i * dst_stride + j] = src[i + j * src_stride].
template <size_t N>
void Transpose2D(const uint8_t* src, int64_t src_stride, uint8_t* dst, int64_t dst_stride, int64_t rows, int64_t cols) {
  constexpr int64_t n = static_cast<int64_t>(N);
  for (int64_t i0 = 0; i0 < rows; i0 += kTile) {
    const int64_t ti = std::min(kTile, rows - i0);
    for (int64_t j0 = 0; j0 < cols; j0 += kTile) {
      const int64_t tj = std::min(kTile, cols - j0);
      TransposeTile<N>(src + (i0 + j0 * src_stride) * n, src_stride, dst + (i0 * dst_stride + j0) * n, dst_stride, ti,
                       tj);
    }
  }
}

void Transpose2DBytes(size_t elem, const uint8_t* src, int64_t src_stride, uint8_t* dst, int64_t dst_stride,
                      int64_t rows, int64_t cols) {
  switch (elem) {
    case 1: Transpose2D<1>(src, src_stride, dst, dst_stride, rows, cols); return;
    case 2: Transpose2D<2>(src, src_stride, dst, dst_stride, rows, cols); return;
    case 4: Transpose2D<4>(src, src_stride, dst, dst_stride, rows, cols); return;
    case 8: Transpose2D<8>(src, src_stride, dst, dst_stride, rows, cols); return;
    case 16: Transpose2D<16>(src, src_stride, dst, dst_stride, rows, cols); return;
    default: {
      const int64_t e = static_cast<int64_t>(elem);
      for (int64_t i = 0; i < rows; ++i) {
        for (int64_t j = 0; j < cols; ++j) {
          std::memcpy(dst + (i * dst_stride + j) * e, src + (i + j * src_stride) * e, elem);
        }
      }
    }
  }
}

enum class Mode { kCopy, kRows, kTiled };

class TransposeKernel final : public Kernel {
 public:
  Status Prepare(KernelContext& ctx) override {
    RELITE_RETURN_IF_ERROR(CheckArity(ctx, 2, 2, 1));
    const Tensor& input = ctx.input(0);
    RELITE_RETURN_IF_ERROR(CheckCopyableType(ctx, input, "input"));
    RELITE_RETURN_IF_ERROR(CheckSameType(ctx, input, "input", ctx.output(0), "output"));
    const int rank = input.rank();
    if (rank > kMaxCopyRank) return ctx.Unsupported("rank " + std::to_string(rank) + " (at most 8)");
    std::vector<int64_t> perm;
    RELITE_RETURN_IF_ERROR(ReadConstantInts(ctx, 1, "perm", &perm));
    if (ctx.input(1).rank() != 1 || static_cast<int>(perm.size()) != rank) {
      return ctx.Error("perm must be 1-D with " + std::to_string(rank) + " entries (the input rank), got shape " +
                       ShapeToString(ctx.input(1).shape));
    }
    std::vector<bool> seen(static_cast<size_t>(rank), false);
    for (size_t j = 0; j < perm.size(); ++j) {
      if (perm[j] < 0 || perm[j] >= rank || seen[static_cast<size_t>(perm[j])]) {
        return ctx.Error("perm is not a permutation of [0, " + std::to_string(rank) + "): entry " +
                         std::to_string(j) + " is " + std::to_string(perm[j]));
      }
      seen[static_cast<size_t>(perm[j])] = true;
    }
    Shape out_shape(static_cast<size_t>(rank));
    for (int j = 0; j < rank; ++j) out_shape[static_cast<size_t>(j)] = input.dim(static_cast<int>(perm[static_cast<size_t>(j)]));
    Plan(input.shape, perm);
    return ctx.ResizeOutput(0, std::move(out_shape));
  }

  Status Eval(KernelContext& ctx) override {
    const Tensor& input = ctx.input(0);
    Tensor& output = ctx.output(0);
    const int64_t total = input.num_elements();
    if (total == 0) return Status::Ok();
    const size_t esize = DataTypeSize(input.type);
    const auto* src = static_cast<const uint8_t*>(input.data);
    auto* dst = static_cast<uint8_t*>(output.data);
    switch (mode_) {
      case Mode::kCopy:
        ParallelMemcpy(ctx, dst, src, static_cast<size_t>(total) * esize);
        break;
      case Mode::kRows:
        CopyStridedView(ctx, view_, esize, src, dst);
        break;
      case Mode::kTiled:
        RunTiled(ctx, esize, src, dst);
        break;
    }
    return Status::Ok();
  }

 private:
  // Reduces (shape, perm) to the fewest dimensions and picks the copy mode.
  void Plan(const Shape& shape, const std::vector<int64_t>& perm) {
    const int rank = static_cast<int>(shape.size());
    // Drop size-1 dimensions.
    std::vector<int> new_index(static_cast<size_t>(rank), -1);
    std::vector<int64_t> sizes;
    for (int d = 0; d < rank; ++d) {
      if (shape[static_cast<size_t>(d)] != 1) {
        new_index[static_cast<size_t>(d)] = static_cast<int>(sizes.size());
        sizes.push_back(shape[static_cast<size_t>(d)]);
      }
    }
    std::vector<int> p;
    for (const int64_t d : perm) {
      if (new_index[static_cast<size_t>(d)] >= 0) p.push_back(new_index[static_cast<size_t>(d)]);
    }
    // Merge runs of output axes that read consecutive input dimensions.
    std::vector<std::pair<int, int>> groups;  // [first, last] input dims, in output order
    for (const int d : p) {
      if (!groups.empty() && groups.back().second + 1 == d) {
        groups.back().second = d;
      } else {
        groups.emplace_back(d, d);
      }
    }
    // Renumber groups in input order.
    std::vector<int> order(groups.size());
    for (size_t g = 0; g < groups.size(); ++g) order[g] = static_cast<int>(g);
    std::sort(order.begin(), order.end(), [&](int a, int b) { return groups[static_cast<size_t>(a)].first < groups[static_cast<size_t>(b)].first; });
    const int r = static_cast<int>(groups.size());
    rank_ = r;
    for (int k = 0; k < r; ++k) {
      const auto& grp = groups[static_cast<size_t>(order[static_cast<size_t>(k)])];
      int64_t size = 1;
      for (int d = grp.first; d <= grp.second; ++d) size *= sizes[static_cast<size_t>(d)];
      in_size_[k] = size;
      perm_[order[static_cast<size_t>(k)]] = k;  // output axis order[k] reads input group k
    }
    int64_t stride = 1;
    for (int k = r - 1; k >= 0; --k) {
      in_stride_[k] = stride;
      stride *= in_size_[k];
    }
    if (r <= 1) {
      mode_ = Mode::kCopy;
      return;
    }
    if (perm_[r - 1] == r - 1) {
      mode_ = Mode::kRows;
      view_ = StridedView{};
      view_.rank = r;
      for (int j = 0; j < r; ++j) {
        view_.size[j] = in_size_[perm_[j]];
        view_.stride[j] = in_stride_[perm_[j]];
      }
      return;
    }
    mode_ = Mode::kTiled;
  }

  void RunTiled(KernelContext& ctx, size_t esize, const uint8_t* src, uint8_t* dst) {
    const int r = rank_;
    int64_t out_size[kMaxCopyRank] = {};
    int64_t out_stride[kMaxCopyRank] = {};
    int64_t stride = 1;
    for (int j = r - 1; j >= 0; --j) {
      out_size[j] = in_size_[perm_[j]];
      out_stride[j] = stride;
      stride *= out_size[j];
    }
    // Axis a: output axis reading the contiguous input dimension; axis b: the
    // contiguous output dimension. The rest are batch dimensions.
    int a = 0;
    for (int j = 0; j < r; ++j) {
      if (perm_[j] == r - 1) a = j;
    }
    const int b = r - 1;
    const int64_t rows = out_size[a];
    const int64_t cols = out_size[b];
    const int64_t src_col_stride = in_stride_[perm_[b]];
    const int64_t dst_row_stride = out_stride[a];
    int batch_size[kMaxCopyRank] = {};
    int64_t batch_src[kMaxCopyRank] = {};
    int64_t batch_dst[kMaxCopyRank] = {};
    int nb = 0;
    int64_t batches = 1;
    for (int j = 0; j < r; ++j) {
      if (j == a || j == b) continue;
      batch_size[nb] = static_cast<int>(out_size[j]);
      batch_src[nb] = in_stride_[perm_[j]];
      batch_dst[nb] = out_stride[j];
      batches *= out_size[j];
      ++nb;
    }
    const int64_t strips = (rows + kStripRows - 1) / kStripRows;
    const int64_t e = static_cast<int64_t>(esize);
    ParallelRows(ctx, batches * strips, kStripRows * cols * e, [&](int64_t begin, int64_t end) {
      for (int64_t item = begin; item < end; ++item) {
        int64_t batch = item / strips;
        const int64_t i0 = (item % strips) * kStripRows;
        int64_t src_off = i0;
        int64_t dst_off = i0 * dst_row_stride;
        for (int k = nb - 1; k >= 0; --k) {
          const int64_t idx = batch % batch_size[k];
          batch /= batch_size[k];
          src_off += idx * batch_src[k];
          dst_off += idx * batch_dst[k];
        }
        Transpose2DBytes(esize, src + src_off * e, src_col_stride, dst + dst_off * e, dst_row_stride,
                         std::min(kStripRows, rows - i0), cols);
      }
    });
  }

  Mode mode_ = Mode::kCopy;
  int rank_ = 0;
  int64_t in_size_[kMaxCopyRank] = {};
  int64_t in_stride_[kMaxCopyRank] = {};
  int perm_[kMaxCopyRank] = {};
  StridedView view_;
};

}  // namespace

StatusOr<std::unique_ptr<Kernel>> CreateTranspose(const Node&) {
  return std::unique_ptr<Kernel>(std::make_unique<TransposeKernel>());
}

}  // namespace relite::cpu
