// The 8-bit GEMM for AVX-512 (see src/kernels/cpu/internal/qgemm.h). One
// 512-bit register holds a panel's k-pair for all 16 columns (the packed
// layout's two 8-column halves are its two 256-bit halves), so a tile row is
// one accumulator and 12 rows fit the 32 registers. Built twice: with
// AVX512_VNNI a pair is one vpdpwssd, without it vpmaddwd + vpaddd. Both are
// exact int32 sums, bit-exact with the other variants.
#include <immintrin.h>

#include <array>
#include <cstring>
#include <utility>

#include "src/kernels/cpu/isa/multi/variants.h"
#include "src/kernels/cpu/isa/x86/dot_pairs.h"

namespace relite::cpu::RELITE_ISA_NS {
namespace {

constexpr int kTileRows = 12;

inline int32_t LoadPair(const int16_t* row, int p) {
  int32_t pair;
  std::memcpy(&pair, row + 2 * p, sizeof(pair));
  return pair;
}

inline __mmask16 ColumnMask(int cols) { return static_cast<__mmask16>((1u << cols) - 1); }

struct Requant {
  __m512 lo, hi;
  __m512i zp;
  bool is_signed;
};

// 16 accumulators -> 16 bytes of C (the first `cols`). The clamp keeps every
// value in the output type's range, so the narrowing saturates nothing.
inline void StoreRequantized(__m512i acc, __m512 scale, const Requant& q, uint8_t* dst, int cols) {
  __m512 f = _mm512_mul_ps(_mm512_cvtepi32_ps(acc), scale);
  f = _mm512_mask_max_ps(f, static_cast<__mmask16>(0xFFFF), f, q.lo);
  f = _mm512_mask_min_ps(f, static_cast<__mmask16>(0xFFFF), f, q.hi);
  const __m512i i = _mm512_add_epi32(_mm512_cvtps_epi32(f), q.zp);
  const __m128i bytes = _mm512_cvtepi32_epi8(i);
  if (cols == kQPanelWidth) {
    _mm_storeu_si128(reinterpret_cast<__m128i*>(dst), bytes);
  } else {
    _mm_mask_storeu_epi8(dst, ColumnMask(cols), bytes);
  }
}

// A panel of int16 weights (W - w_zp) or of raw bytes (widened here; the
// zero point then applied through the row sums).
template <int MR, bool kBytes, bool kSigned>
inline void TileRequant(int pairs, const int16_t* a, size_t lda, const QGemmPanels& w, int panel, const Requant& q,
                        const int32_t* row_sums, uint8_t* c, size_t ldc, int cols) {
  const size_t col0 = static_cast<size_t>(panel) * kQPanelWidth;
  const __m512i bias = _mm512_load_si512(w.bias + col0);
  __m512i acc[MR];
  if constexpr (kBytes) {
    const __m512i zp = _mm512_load_si512(w.zp + col0);
    for (int r = 0; r < MR; ++r) acc[r] = _mm512_sub_epi32(bias, _mm512_mullo_epi32(zp, _mm512_set1_epi32(row_sums[r])));
  } else {
    for (int r = 0; r < MR; ++r) acc[r] = bias;
  }
  const int16_t* rows[MR];
  for (int r = 0; r < MR; ++r) rows[r] = a + static_cast<size_t>(r) * lda;
  const size_t offset = static_cast<size_t>(panel) * pairs * 32;
  auto weights = [&](int p) {
    if constexpr (kBytes) {
      const __m256i raw =
          _mm256_load_si256(reinterpret_cast<const __m256i*>(w.packed8 + offset + static_cast<size_t>(p) * 32));
      return kSigned ? _mm512_cvtepi8_epi16(raw) : _mm512_cvtepu8_epi16(raw);
    } else {
      return _mm512_load_si512(w.packed + offset + static_cast<size_t>(p) * 32);
    }
  };
  // With one or two rows (batch-1 products) a single accumulator per row
  // would wait on vpdpwssd's latency every pair: four chains per row.
  constexpr int kChains = MR <= 2 ? 4 : 1;
  int p = 0;
  if constexpr (kChains > 1) {
    __m512i part[kChains - 1][MR];
    for (int c = 0; c < kChains - 1; ++c) {
      for (int r = 0; r < MR; ++r) part[c][r] = _mm512_setzero_si512();
    }
    for (; p + kChains <= pairs; p += kChains) {
      const __m512i w0 = weights(p), w1 = weights(p + 1), w2 = weights(p + 2), w3 = weights(p + 3);
      for (int r = 0; r < MR; ++r) {
        acc[r] = DotPairs(acc[r], _mm512_set1_epi32(LoadPair(rows[r], p)), w0);
        part[0][r] = DotPairs(part[0][r], _mm512_set1_epi32(LoadPair(rows[r], p + 1)), w1);
        part[1][r] = DotPairs(part[1][r], _mm512_set1_epi32(LoadPair(rows[r], p + 2)), w2);
        part[2][r] = DotPairs(part[2][r], _mm512_set1_epi32(LoadPair(rows[r], p + 3)), w3);
      }
    }
    for (int r = 0; r < MR; ++r) {
      acc[r] = _mm512_add_epi32(_mm512_add_epi32(acc[r], part[0][r]), _mm512_add_epi32(part[1][r], part[2][r]));
    }
  }
  for (; p < pairs; ++p) {
    const __m512i wv = weights(p);
#pragma GCC unroll 12
    for (int r = 0; r < MR; ++r) acc[r] = DotPairs(acc[r], _mm512_set1_epi32(LoadPair(rows[r], p)), wv);
  }
  const __m512 scale = _mm512_load_ps(w.scale + col0);
  for (int r = 0; r < MR; ++r) StoreRequantized(acc[r], scale, q, c + static_cast<size_t>(r) * ldc, cols);
}

// A last panel with at most 8 columns: its first half only.
template <int MR>
inline void TileRequantHalf(int pairs, const int16_t* a, size_t lda, const QGemmPanels& w, int panel,
                            const Requant& q, uint8_t* c, size_t ldc, int cols) {
  const size_t col0 = static_cast<size_t>(panel) * kQPanelWidth;
  const __m256i bias = _mm256_load_si256(reinterpret_cast<const __m256i*>(w.bias + col0));
  __m256i acc[MR];
  const int16_t* rows[MR];
  for (int r = 0; r < MR; ++r) {
    acc[r] = bias;
    rows[r] = a + static_cast<size_t>(r) * lda;
  }
  const int16_t* wp = w.packed + static_cast<size_t>(panel) * pairs * 32;
  for (int p = 0; p < pairs; ++p, wp += 32) {
    const __m256i wv = _mm256_load_si256(reinterpret_cast<const __m256i*>(wp));
#pragma GCC unroll 12
    for (int r = 0; r < MR; ++r) acc[r] = DotPairs(acc[r], _mm256_set1_epi32(LoadPair(rows[r], p)), wv);
  }
  const __m512 scale = _mm512_load_ps(w.scale + col0);
  for (int r = 0; r < MR; ++r) {
    StoreRequantized(_mm512_zextsi256_si512(acc[r]), scale, q, c + static_cast<size_t>(r) * ldc, cols);
  }
}

int32_t RowSum(const int16_t* a, size_t n) {
  __m512i acc = _mm512_setzero_si512();
  const __m512i ones = _mm512_set1_epi16(1);
  size_t i = 0;
  for (; i + 32 <= n; i += 32) acc = DotPairs(acc, _mm512_loadu_si512(a + i), ones);
  int32_t sum = _mm512_reduce_add_epi32(acc);
  for (; i < n; ++i) sum += a[i];
  return sum;
}

template <int MR>
void RowBlock(const int16_t* a, size_t lda, const QGemmPanels& w, const Requant& q, uint8_t* c, size_t ldc,
              int n_begin, int n_end) {
  int32_t sums[MR] = {};
  if (w.bytes) {
    for (int r = 0; r < MR; ++r) sums[r] = RowSum(a + static_cast<size_t>(r) * lda, QRowStride(w.k));
  }
  for (int n0 = n_begin; n0 < n_end; n0 += kQPanelWidth) {
    const int panel = n0 / kQPanelWidth;
    const int cols = MinI(kQPanelWidth, n_end - n0);
    uint8_t* cr = c + n0;
    if (w.bytes) {
      if (w.signed_bytes) {
        TileRequant<MR, true, true>(w.pairs, a, lda, w, panel, q, sums, cr, ldc, cols);
      } else {
        TileRequant<MR, true, false>(w.pairs, a, lda, w, panel, q, sums, cr, ldc, cols);
      }
    } else if (cols <= 8) {
      TileRequantHalf<MR>(w.pairs, a, lda, w, panel, q, cr, ldc, cols);
    } else {
      TileRequant<MR, false, false>(w.pairs, a, lda, w, panel, q, sums, cr, ldc, cols);
    }
  }
}

using RowBlockFn = void (*)(const int16_t*, size_t, const QGemmPanels&, const Requant&, uint8_t*, size_t, int, int);
template <int... kRows>
constexpr auto MakeRowBlocks(std::integer_sequence<int, kRows...>) {
  return std::array<RowBlockFn, sizeof...(kRows)>{RowBlock<kRows + 1>...};
}
constexpr auto kRowBlocks = MakeRowBlocks(std::make_integer_sequence<int, kTileRows>{});

}  // namespace

void QWidenRows(const uint8_t* src, size_t src_stride, int rows, int k, uint8_t xor_mask, int16_t* dst) {
  const size_t stride = QRowStride(k);
  const __m256i mask = _mm256_set1_epi8(static_cast<char>(xor_mask));
  for (int r = 0; r < rows; ++r) {
    const uint8_t* s = src + static_cast<size_t>(r) * src_stride;
    int16_t* d = dst + static_cast<size_t>(r) * stride;
    int i = 0;
    for (; i + 32 <= k; i += 32) {
      const __m256i v = _mm256_xor_si256(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(s + i)), mask);
      _mm512_storeu_si512(d + i, _mm512_cvtepu8_epi16(v));
    }
    for (; i < k; ++i) d[i] = static_cast<int16_t>(static_cast<uint8_t>(s[i] ^ xor_mask));
    if (k & 1) d[k] = 0;
  }
}

void QGemm(int m, const int16_t* a, size_t lda, const QGemmPanels& w, const QGemmRequant& out, uint8_t* c, size_t ldc,
           int n_begin, int n_end) {
  Requant q;
  q.lo = _mm512_set1_ps(static_cast<float>(out.qmin - out.zero_point));
  q.hi = _mm512_set1_ps(static_cast<float>(out.qmax - out.zero_point));
  q.zp = _mm512_set1_epi32(out.zero_point);
  q.is_signed = out.is_signed;
  if (w.bytes) {
    // Rows outer, panels inner: each row block's sums are taken once.
    int r = 0;
    for (; r + kTileRows <= m; r += kTileRows) {
      kRowBlocks[kTileRows - 1](a + static_cast<size_t>(r) * lda, lda, w, q, c + static_cast<size_t>(r) * ldc, ldc,
                                n_begin, n_end);
    }
    if (r < m) {
      kRowBlocks[m - r - 1](a + static_cast<size_t>(r) * lda, lda, w, q, c + static_cast<size_t>(r) * ldc, ldc,
                            n_begin, n_end);
    }
    return;
  }
  // Panels outer: a panel's weights stay in L1 while the row tiles stream.
  for (int n0 = n_begin; n0 < n_end; n0 += kQPanelWidth) {
    const int n1 = MinI(n_end, n0 + kQPanelWidth);
    int r = 0;
    for (; r + kTileRows <= m; r += kTileRows) {
      kRowBlocks[kTileRows - 1](a + static_cast<size_t>(r) * lda, lda, w, q, c + static_cast<size_t>(r) * ldc, ldc,
                                n0, n1);
    }
    if (r < m) {
      kRowBlocks[m - r - 1](a + static_cast<size_t>(r) * lda, lda, w, q, c + static_cast<size_t>(r) * ldc, ldc, n0,
                            n1);
    }
  }
}

namespace {

template <int MR>
void TileAcc(int pairs, const int16_t* a, size_t lda, const QGemmPanels& w, int panel, int32_t* c, size_t ldc,
             int cols) {
  const size_t col0 = static_cast<size_t>(panel) * kQPanelWidth;
  __m512i acc[MR];
  for (int r = 0; r < MR; ++r) acc[r] = _mm512_load_si512(w.bias + col0);
  const int16_t* wp = w.packed + static_cast<size_t>(panel) * pairs * 32;
  for (int p = 0; p < pairs; ++p, wp += 32) {
    const __m512i wv = _mm512_load_si512(wp);
    for (int r = 0; r < MR; ++r) {
      acc[r] = DotPairs(acc[r], _mm512_set1_epi32(LoadPair(a + static_cast<size_t>(r) * lda, p)), wv);
    }
  }
  for (int r = 0; r < MR; ++r) _mm512_mask_storeu_epi32(c + static_cast<size_t>(r) * ldc, ColumnMask(cols), acc[r]);
}

}  // namespace

void QGemmAcc(int m, const int16_t* a, size_t lda, const QGemmPanels& w, int32_t* c, size_t ldc, int n_begin,
              int n_end) {
  for (int n0 = n_begin; n0 < n_end; n0 += kQPanelWidth) {
    const int panel = n0 / kQPanelWidth;
    const int cols = MinI(kQPanelWidth, n_end - n0);
    for (int r = 0; r < m; r += 4) {
      const int16_t* ar = a + r * lda;
      int32_t* cr = c + r * ldc + (n0 - n_begin);
      switch (MinI(4, m - r)) {
        case 1: TileAcc<1>(w.pairs, ar, lda, w, panel, cr, ldc, cols); break;
        case 2: TileAcc<2>(w.pairs, ar, lda, w, panel, cr, ldc, cols); break;
        case 3: TileAcc<3>(w.pairs, ar, lda, w, panel, cr, ldc, cols); break;
        default: TileAcc<4>(w.pairs, ar, lda, w, panel, cr, ldc, cols); break;
      }
    }
  }
}

}  // namespace relite::cpu::RELITE_ISA_NS
