// The 8-bit GEMM for AVX2 (see src/kernels/cpu/internal/qgemm.h): int16
// activations times int16 weight pairs with vpmaddwd, 6x16 register tiles.
#include <immintrin.h>

#include <cstring>
#include <type_traits>

#include "src/kernels/cpu/isa/multi/variants.h"

namespace relite::cpu::RELITE_ISA_NS {
namespace {

constexpr int kTileRows = 6;

}  // namespace

void QWidenRows(const uint8_t* src, size_t src_stride, int rows, int k, uint8_t xor_mask, int16_t* dst) {
  const size_t stride = QRowStride(k);
  const __m128i mask = _mm_set1_epi8(static_cast<char>(xor_mask));
  for (int r = 0; r < rows; ++r) {
    const uint8_t* s = src + static_cast<size_t>(r) * src_stride;
    int16_t* d = dst + static_cast<size_t>(r) * stride;
    int i = 0;
    for (; i + 16 <= k; i += 16) {
      const __m128i v = _mm_xor_si128(_mm_loadu_si128(reinterpret_cast<const __m128i*>(s + i)), mask);
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(d + i), _mm256_cvtepu8_epi16(v));
    }
    for (; i < k; ++i) d[i] = static_cast<int16_t>(static_cast<uint8_t>(s[i] ^ xor_mask));
    if (k & 1) d[k] = 0;
  }
}

namespace {

// Calls tile(std::integral_constant<int, MR>{}, r) for the row blocks
// [r, r + MR) that cover [0, m): full tiles of kTileRows, then the rest.
template <typename Tile>
inline void ForEachRowTile(int m, Tile&& tile) {
  int r = 0;
  for (; r + kTileRows <= m; r += kTileRows) tile(std::integral_constant<int, kTileRows>{}, r);
  switch (m - r) {
    case 1: tile(std::integral_constant<int, 1>{}, r); break;
    case 2: tile(std::integral_constant<int, 2>{}, r); break;
    case 3: tile(std::integral_constant<int, 3>{}, r); break;
    case 4: tile(std::integral_constant<int, 4>{}, r); break;
    case 5: tile(std::integral_constant<int, 5>{}, r); break;
    default: break;
  }
  static_assert(kTileRows == 6, "the remainder cases above cover 1..kTileRows-1 rows");
}

// acc[r] += sum over the k-pairs of row r's pair times the pair's two weight
// vectors (columns 0-7, 8-15), which load_pair(p, &w0, &w1) provides.
template <int MR, typename LoadPair>
inline void AccumulatePairs(int pairs, const int16_t* a, size_t lda, LoadPair&& load_pair, __m256i acc[MR][2]) {
  const int32_t* rows[MR];
  for (int r = 0; r < MR; ++r) rows[r] = reinterpret_cast<const int32_t*>(a + static_cast<size_t>(r) * lda);
  for (int p = 0; p < pairs; ++p) {
    __m256i w0, w1;
    load_pair(p, &w0, &w1);
    for (int r = 0; r < MR; ++r) {
      int32_t pair;
      std::memcpy(&pair, rows[r] + p, sizeof(pair));
      const __m256i av = _mm256_set1_epi32(pair);
      acc[r][0] = _mm256_add_epi32(acc[r][0], _mm256_madd_epi16(av, w0));
      acc[r][1] = _mm256_add_epi32(acc[r][1], _mm256_madd_epi16(av, w1));
    }
  }
}

// The int16 panels: acc = bias + sum A * (W - w_zp).
template <int MR>
inline void Accumulate(int pairs, const int16_t* a, size_t lda, const int16_t* w, const int32_t* bias,
                       __m256i acc[MR][2]) {
  const __m256i b0 = _mm256_load_si256(reinterpret_cast<const __m256i*>(bias));
  const __m256i b1 = _mm256_load_si256(reinterpret_cast<const __m256i*>(bias + 8));
  for (int r = 0; r < MR; ++r) {
    acc[r][0] = b0;
    acc[r][1] = b1;
  }
  AccumulatePairs<MR>(
      pairs, a, lda,
      [w](int p, __m256i* w0, __m256i* w1) {
        *w0 = _mm256_load_si256(reinterpret_cast<const __m256i*>(w + static_cast<size_t>(p) * 32));
        *w1 = _mm256_load_si256(reinterpret_cast<const __m256i*>(w + static_cast<size_t>(p) * 32 + 16));
      },
      acc);
}

struct Requant {
  __m256 lo, hi;
  __m256i zp;
  bool is_signed;
};

// 16 int32 accumulators -> 16 requantized bytes.
inline __m128i RequantizeTile(__m256i acc0, __m256i acc1, __m256 s0, __m256 s1, const Requant& q) {
  __m256 f0 = _mm256_mul_ps(_mm256_cvtepi32_ps(acc0), s0);
  __m256 f1 = _mm256_mul_ps(_mm256_cvtepi32_ps(acc1), s1);
  f0 = _mm256_min_ps(_mm256_max_ps(f0, q.lo), q.hi);
  f1 = _mm256_min_ps(_mm256_max_ps(f1, q.lo), q.hi);
  const __m256i i0 = _mm256_add_epi32(_mm256_cvtps_epi32(f0), q.zp);
  const __m256i i1 = _mm256_add_epi32(_mm256_cvtps_epi32(f1), q.zp);
  const __m256i w16 = _mm256_permute4x64_epi64(_mm256_packs_epi32(i0, i1), 0xD8);
  const __m128i lo = _mm256_castsi256_si128(w16);
  const __m128i hi = _mm256_extracti128_si256(w16, 1);
  return q.is_signed ? _mm_packs_epi16(lo, hi) : _mm_packus_epi16(lo, hi);
}

// The first `cols` of 16 bytes to dst (whole 16- and 8-byte runs in one store).
inline void StoreColumns(__m128i bytes, int cols, uint8_t* dst) {
  if (cols == kQPanelWidth) {
    _mm_storeu_si128(reinterpret_cast<__m128i*>(dst), bytes);
  } else if (cols == 8) {
    _mm_storel_epi64(reinterpret_cast<__m128i*>(dst), bytes);
  } else {
    alignas(16) uint8_t tmp[16];
    _mm_store_si128(reinterpret_cast<__m128i*>(tmp), bytes);
    std::memcpy(dst, tmp, static_cast<size_t>(cols));
  }
}

// Requantizes a tile's accumulators (panel columns from col0) into C.
template <int MR>
inline void StoreTile(__m256i acc[MR][2], const QGemmPanels& w, size_t col0, const Requant& q, uint8_t* c,
                      size_t ldc, int cols) {
  const __m256 s0 = _mm256_load_ps(w.scale + col0);
  const __m256 s1 = _mm256_load_ps(w.scale + col0 + 8);
  for (int r = 0; r < MR; ++r) {
    StoreColumns(RequantizeTile(acc[r][0], acc[r][1], s0, s1, q), cols, c + static_cast<size_t>(r) * ldc);
  }
}

template <int MR>
void TileRequant(int pairs, const int16_t* a, size_t lda, const QGemmPanels& w, int panel, const Requant& q,
                 uint8_t* c, size_t ldc, int cols) {
  __m256i acc[MR][2];
  const int16_t* wp = w.packed + static_cast<size_t>(panel) * pairs * 32;
  const size_t col0 = static_cast<size_t>(panel) * kQPanelWidth;
  Accumulate<MR>(pairs, a, lda, wp, w.bias + col0, acc);
  StoreTile<MR>(acc, w, col0, q, c, ldc, cols);
}

// A panel's last columns when at most 8 are left (e.g. 8 output channels):
// only the first 8 columns of the panel are computed.
template <int MR>
void TileRequantHalf(int pairs, const int16_t* a, size_t lda, const QGemmPanels& w, int panel, const Requant& q,
                     uint8_t* c, size_t ldc, int cols) {
  const int16_t* wp = w.packed + static_cast<size_t>(panel) * pairs * 32;
  const size_t col0 = static_cast<size_t>(panel) * kQPanelWidth;
  __m256i acc[MR];
  const int32_t* rows[MR];
  const __m256i bias = _mm256_load_si256(reinterpret_cast<const __m256i*>(w.bias + col0));
  for (int r = 0; r < MR; ++r) {
    acc[r] = bias;
    rows[r] = reinterpret_cast<const int32_t*>(a + static_cast<size_t>(r) * lda);
  }
  for (int p = 0; p < pairs; ++p, wp += 32) {
    const __m256i w0 = _mm256_load_si256(reinterpret_cast<const __m256i*>(wp));
    for (int r = 0; r < MR; ++r) {
      int32_t pair;
      std::memcpy(&pair, rows[r] + p, sizeof(pair));
      acc[r] = _mm256_add_epi32(acc[r], _mm256_madd_epi16(_mm256_set1_epi32(pair), w0));
    }
  }
  const __m256 s0 = _mm256_load_ps(w.scale + col0);
  for (int r = 0; r < MR; ++r) {
    const __m256 f = _mm256_min_ps(_mm256_max_ps(_mm256_mul_ps(_mm256_cvtepi32_ps(acc[r]), s0), q.lo), q.hi);
    const __m256i i = _mm256_add_epi32(_mm256_cvtps_epi32(f), q.zp);
    const __m128i w16 = _mm_packs_epi32(_mm256_castsi256_si128(i), _mm256_extracti128_si256(i, 1));
    const __m128i bytes = q.is_signed ? _mm_packs_epi16(w16, w16) : _mm_packus_epi16(w16, w16);
    StoreColumns(bytes, cols, c + static_cast<size_t>(r) * ldc);
  }
}

// Byte-packed weights (QGemmWeights::bytes): the same 6x16 tile, each pair
// of weight rows widened from 32 bytes, the zero point applied once per row
// through the row's sum: acc = bias + sum A*W - w_zp * sum A.
template <int MR, bool kSigned>
void TileRequantBytes(int pairs, const int16_t* a, size_t lda, const QGemmPanels& w, int panel, const Requant& q,
                      const int32_t* row_sums, uint8_t* c, size_t ldc, int cols) {
  const uint8_t* wp = w.packed8 + static_cast<size_t>(panel) * pairs * 32;
  const size_t col0 = static_cast<size_t>(panel) * kQPanelWidth;
  const __m256i b0 = _mm256_load_si256(reinterpret_cast<const __m256i*>(w.bias + col0));
  const __m256i b1 = _mm256_load_si256(reinterpret_cast<const __m256i*>(w.bias + col0 + 8));
  const __m256i z0 = _mm256_load_si256(reinterpret_cast<const __m256i*>(w.zp + col0));
  const __m256i z1 = _mm256_load_si256(reinterpret_cast<const __m256i*>(w.zp + col0 + 8));
  __m256i acc[MR][2];
  for (int r = 0; r < MR; ++r) {
    const __m256i sum = _mm256_set1_epi32(row_sums[r]);
    acc[r][0] = _mm256_sub_epi32(b0, _mm256_mullo_epi32(z0, sum));
    acc[r][1] = _mm256_sub_epi32(b1, _mm256_mullo_epi32(z1, sum));
  }
  AccumulatePairs<MR>(
      pairs, a, lda,
      [wp](int p, __m256i* w0, __m256i* w1) {
        const __m128i lo = _mm_load_si128(reinterpret_cast<const __m128i*>(wp + static_cast<size_t>(p) * 32));
        const __m128i hi = _mm_load_si128(reinterpret_cast<const __m128i*>(wp + static_cast<size_t>(p) * 32 + 16));
        *w0 = kSigned ? _mm256_cvtepi8_epi16(lo) : _mm256_cvtepu8_epi16(lo);
        *w1 = kSigned ? _mm256_cvtepi8_epi16(hi) : _mm256_cvtepu8_epi16(hi);
      },
      acc);
  StoreTile<MR>(acc, w, col0, q, c, ldc, cols);
}

// Sum of a widened row (values 0..255, n int16).
int32_t RowSum(const int16_t* a, size_t n) {
  __m256i acc = _mm256_setzero_si256();
  const __m256i ones = _mm256_set1_epi16(1);
  size_t i = 0;
  for (; i + 16 <= n; i += 16) {
    acc = _mm256_add_epi32(acc, _mm256_madd_epi16(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(a + i)), ones));
  }
  alignas(32) int32_t lanes[8];
  _mm256_store_si256(reinterpret_cast<__m256i*>(lanes), acc);
  int32_t sum = 0;
  for (int32_t v : lanes) sum += v;
  for (; i < n; ++i) sum += a[i];
  return sum;
}

// Rows outer, panels inner: each row block's sums are taken once.
template <bool kSigned>
void QGemmBytes(int m, const int16_t* a, size_t lda, const QGemmPanels& w, const Requant& q, uint8_t* c, size_t ldc,
                int n_begin, int n_end) {
  const size_t row_values = QRowStride(w.k);
  ForEachRowTile(m, [&](auto rows, int r0) {
    constexpr int MR = decltype(rows)::value;
    int32_t sums[MR];
    for (int r = 0; r < MR; ++r) sums[r] = RowSum(a + static_cast<size_t>(r0 + r) * lda, row_values);
    for (int n0 = n_begin; n0 < n_end; n0 += kQPanelWidth) {
      TileRequantBytes<MR, kSigned>(w.pairs, a + static_cast<size_t>(r0) * lda, lda, w, n0 / kQPanelWidth, q, sums,
                                    c + static_cast<size_t>(r0) * ldc + n0, ldc, MinI(kQPanelWidth, n_end - n0));
    }
  });
}

template <int MR>
void TileAcc(int pairs, const int16_t* a, size_t lda, const QGemmPanels& w, int panel, int32_t* c, size_t ldc,
             int cols) {
  __m256i acc[MR][2];
  const int16_t* wp = w.packed + static_cast<size_t>(panel) * pairs * 32;
  const size_t col0 = static_cast<size_t>(panel) * kQPanelWidth;
  Accumulate<MR>(pairs, a, lda, wp, w.bias + col0, acc);
  for (int r = 0; r < MR; ++r) {
    alignas(32) int32_t tmp[16];
    _mm256_store_si256(reinterpret_cast<__m256i*>(tmp), acc[r][0]);
    _mm256_store_si256(reinterpret_cast<__m256i*>(tmp + 8), acc[r][1]);
    std::memcpy(c + static_cast<size_t>(r) * ldc, tmp, static_cast<size_t>(cols) * sizeof(int32_t));
  }
}

}  // namespace

void QGemm(int m, const int16_t* a, size_t lda, const QGemmPanels& w, const QGemmRequant& out, uint8_t* c, size_t ldc,
           int n_begin, int n_end) {
  Requant q;
  q.lo = _mm256_set1_ps(static_cast<float>(out.qmin - out.zero_point));
  q.hi = _mm256_set1_ps(static_cast<float>(out.qmax - out.zero_point));
  q.zp = _mm256_set1_epi32(out.zero_point);
  q.is_signed = out.is_signed;
  if (w.bytes) {
    if (w.signed_bytes) {
      QGemmBytes<true>(m, a, lda, w, q, c, ldc, n_begin, n_end);
    } else {
      QGemmBytes<false>(m, a, lda, w, q, c, ldc, n_begin, n_end);
    }
    return;
  }
  const int pairs = w.pairs;
  for (int n0 = n_begin; n0 < n_end; n0 += kQPanelWidth) {
    const int panel = n0 / kQPanelWidth;
    const int cols = MinI(kQPanelWidth, n_end - n0);
    ForEachRowTile(m, [&](auto rows, int r) {
      constexpr int MR = decltype(rows)::value;
      const int16_t* ar = a + static_cast<size_t>(r) * lda;
      uint8_t* cr = c + static_cast<size_t>(r) * ldc + n0;
      if (cols <= 8) {
        TileRequantHalf<MR>(pairs, ar, lda, w, panel, q, cr, ldc, cols);
      } else {
        TileRequant<MR>(pairs, ar, lda, w, panel, q, cr, ldc, cols);
      }
    });
  }
}

void QGemmAcc(int m, const int16_t* a, size_t lda, const QGemmPanels& w, int32_t* c, size_t ldc, int n_begin,
              int n_end) {
  const int pairs = w.pairs;
  for (int n0 = n_begin; n0 < n_end; n0 += kQPanelWidth) {
    const int panel = n0 / kQPanelWidth;
    const int cols = MinI(kQPanelWidth, n_end - n0);
    for (int r = 0; r < m; r += 4) {
      const int rows = MinI(4, m - r);
      const int16_t* ar = a + r * lda;
      int32_t* cr = c + r * ldc + (n0 - n_begin);
      switch (rows) {
        case 1: TileAcc<1>(pairs, ar, lda, w, panel, cr, ldc, cols); break;
        case 2: TileAcc<2>(pairs, ar, lda, w, panel, cr, ldc, cols); break;
        case 3: TileAcc<3>(pairs, ar, lda, w, panel, cr, ldc, cols); break;
        default: TileAcc<4>(pairs, ar, lda, w, panel, cr, ldc, cols); break;
      }
    }
  }
}


}  // namespace relite::cpu::RELITE_ISA_NS
