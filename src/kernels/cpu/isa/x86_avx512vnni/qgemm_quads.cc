// The 8-bit GEMM on byte rows for AVX-512 VNNI (the "quads" layout of
// src/kernels/cpu/internal/qgemm.h): vpdpbusd multiplies 4 unsigned
// activation bytes by 4 signed weight bytes and adds the 4 products to an
// int32 lane, 64 products per instruction where the int16 pairs path
// (vpdpwssd) does 32. A panel's quad of k for its 16 columns is one 64-byte
// register; a row's quad is one broadcast dword. Sums are exact in int32
// (4 * 255 * 128 per step), so the result is bit-exact with the other paths.
#include <immintrin.h>

#include <array>
#include <cstring>
#include <utility>

#include "src/kernels/cpu/isa/multi/variants.h"
#include "src/kernels/cpu/isa/x86/dot_pairs.h"

namespace relite::cpu::RELITE_ISA_NS {
namespace {

// Row tiles: 8 rows x 2 panels (16 accumulators, 2 weight loads and 8
// broadcasts per 16 vpdpbusd) where two panels remain, 12 rows x 1 panel for
// a last odd panel.
constexpr int kRowsTwoPanels = 8;
constexpr int kRowsOnePanel = 12;
// Rows whose sums are taken together before the panels run over them.
constexpr int kChunkRows = 96;

inline int32_t LoadQuad(const uint8_t* row, int q) {
  int32_t v;
  std::memcpy(&v, row + 4 * static_cast<size_t>(q), sizeof(v));
  return v;
}

inline __mmask16 ColumnMask(int cols) { return static_cast<__mmask16>((1u << cols) - 1); }

// The XNNPACK "fp32" requantization, four rows at a time: the float upper
// clamp, round to nearest even, saturating packs to 16 bits (+ zero point)
// and 8 bits, and the lower clamp in bytes. Equal to clamping in float and
// adding the zero point after rounding (everything below the lower clamp
// saturates to it), so bit-exact with the per-value form of the other paths.
struct Requant {
  __m512 hi;     // qmax - zp
  __m512i zp16;  // zp as int16
  __m512i min8;  // qmin as bytes
  bool is_signed;
};

inline __m512i ScaleRound(__m512i acc, __m512 scale, const Requant& q) {
  return _mm512_cvtps_epi32(_mm512_min_ps(_mm512_mul_ps(_mm512_cvtepi32_ps(acc), scale), q.hi));
}

// Rows r0..r3 (16 columns each) to bytes; stores the first `rows` of them.
inline void StoreFourRows(__m512i r0, __m512i r1, __m512i r2, __m512i r3, const Requant& q, uint8_t* dst, size_t ldc,
                          int rows, int cols) {
  const __m512i r01 = _mm512_adds_epi16(_mm512_packs_epi32(r0, r1), q.zp16);
  const __m512i r23 = _mm512_adds_epi16(_mm512_packs_epi32(r2, r3), q.zp16);
  __m512i v;
  if (q.is_signed) {
    v = _mm512_max_epi8(_mm512_packs_epi16(r01, r23), q.min8);
  } else {
    v = _mm512_max_epu8(_mm512_packus_epi16(r01, r23), q.min8);
  }
  // The packs work per 128-bit lane: lane i holds columns 4i..4i+3 of rows
  // 0, 1, 2, 3 (a dword each). Gather each row's dwords into one lane.
  v = _mm512_permutexvar_epi32(_mm512_setr_epi32(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15), v);
  const __m128i lanes[4] = {_mm512_castsi512_si128(v), _mm512_extracti32x4_epi32(v, 1), _mm512_extracti32x4_epi32(v, 2),
                            _mm512_extracti32x4_epi32(v, 3)};
  for (int r = 0; r < rows; ++r) {
    uint8_t* d = dst + static_cast<size_t>(r) * ldc;
    if (cols >= kQPanelWidth) {
      _mm_storeu_si128(reinterpret_cast<__m128i*>(d), lanes[r]);
    } else {
      _mm_mask_storeu_epi8(d, ColumnMask(cols), lanes[r]);
    }
  }
}

// The 8 qword partial sums of a row's bytes (k rounded up to quads, the
// padding zero).
inline __m512i RowPartialSums(const uint8_t* a, size_t n) {
  __m512i acc = _mm512_setzero_si512();
  size_t i = 0;
  for (; i + 64 <= n; i += 64) {
    acc = _mm512_add_epi64(acc, _mm512_sad_epu8(_mm512_loadu_si512(a + i), _mm512_setzero_si512()));
  }
  if (i < n) {
    const __mmask64 m = (~uint64_t{0}) >> (64 - (n - i));
    acc = _mm512_add_epi64(acc, _mm512_sad_epu8(_mm512_maskz_loadu_epi8(m, a + i), _mm512_setzero_si512()));
  }
  return acc;
}

// Sums of the bytes of `rows` rows, 8 at a time: the partial sums of 8 rows
// are reduced together (pairs within lanes, then lanes), a few instructions
// per row instead of a full horizontal reduction each.
void RowSums(const uint8_t* a, size_t lda, int rows, int quads, int32_t* sums) {
  const size_t n = static_cast<size_t>(quads) * 4;
  int r = 0;
  for (; r + 8 <= rows; r += 8) {
    __m512i v[8];
    for (int i = 0; i < 8; ++i) v[i] = RowPartialSums(a + static_cast<size_t>(r + i) * lda, n);
    __m512i t[4];
    for (int i = 0; i < 4; ++i) {
      t[i] = _mm512_add_epi64(_mm512_unpacklo_epi64(v[2 * i], v[2 * i + 1]), _mm512_unpackhi_epi64(v[2 * i], v[2 * i + 1]));
    }
    // Lane j of t[i]: rows 2i, 2i + 1 over qwords 2j, 2j + 1.
    const __m512i u0 = _mm512_add_epi64(_mm512_shuffle_i64x2(t[0], t[1], 0x88), _mm512_shuffle_i64x2(t[0], t[1], 0xDD));
    const __m512i u1 = _mm512_add_epi64(_mm512_shuffle_i64x2(t[2], t[3], 0x88), _mm512_shuffle_i64x2(t[2], t[3], 0xDD));
    const __m512i total = _mm512_add_epi64(_mm512_shuffle_i64x2(u0, u1, 0x88), _mm512_shuffle_i64x2(u0, u1, 0xDD));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(sums + r), _mm512_cvtepi64_epi32(total));
  }
  for (; r < rows; ++r) {
    sums[r] = static_cast<int32_t>(_mm512_reduce_add_epi64(RowPartialSums(a + static_cast<size_t>(r) * lda, n)));
  }
}

// MR rows x NP panels starting at `panel`. `sums` (MR row sums) is null when
// no column needs the row-sum correction.
template <int MR, int NP>
inline void Tile(const uint8_t* a, size_t lda, const QGemmPanels& w, int panel, const int32_t* sums, const Requant& q,
                 uint8_t* c, size_t ldc, int cols) {
  const int quads = w.quads;
  __m512i acc[NP][MR];
  for (int p = 0; p < NP; ++p) {
    const size_t col0 = static_cast<size_t>(panel + p) * kQPanelWidth;
    const __m512i bias = _mm512_load_si512(w.bias + col0);
    if (sums != nullptr) {
      const __m512i corr = _mm512_load_si512(w.sum_coef + col0);
      for (int r = 0; r < MR; ++r) acc[p][r] = _mm512_add_epi32(bias, _mm512_mullo_epi32(corr, _mm512_set1_epi32(sums[r])));
    } else {
      for (int r = 0; r < MR; ++r) acc[p][r] = bias;
    }
  }
  const uint8_t* rows[MR];
  for (int r = 0; r < MR; ++r) rows[r] = a + static_cast<size_t>(r) * lda;
  const size_t panel_bytes = static_cast<size_t>(quads) * 64;
  const uint8_t* wp = w.packed4 + static_cast<size_t>(panel) * panel_bytes;
  int k = 0;
  // One or two rows (batch-1 products): four chains per row hide
  // vpdpbusd's latency.
  if constexpr (MR <= 2 && NP == 1) {
    __m512i part[3][MR];
    for (auto& pr : part) {
      for (int r = 0; r < MR; ++r) pr[r] = _mm512_setzero_si512();
    }
    for (; k + 4 <= quads; k += 4) {
      const uint8_t* wk = wp + static_cast<size_t>(k) * 64;
      const __m512i w0 = _mm512_load_si512(wk), w1 = _mm512_load_si512(wk + 64);
      const __m512i w2 = _mm512_load_si512(wk + 128), w3 = _mm512_load_si512(wk + 192);
      for (int r = 0; r < MR; ++r) {
        acc[0][r] = DotQuads(acc[0][r], _mm512_set1_epi32(LoadQuad(rows[r], k)), w0);
        part[0][r] = DotQuads(part[0][r], _mm512_set1_epi32(LoadQuad(rows[r], k + 1)), w1);
        part[1][r] = DotQuads(part[1][r], _mm512_set1_epi32(LoadQuad(rows[r], k + 2)), w2);
        part[2][r] = DotQuads(part[2][r], _mm512_set1_epi32(LoadQuad(rows[r], k + 3)), w3);
      }
    }
    for (int r = 0; r < MR; ++r) {
      acc[0][r] = _mm512_add_epi32(_mm512_add_epi32(acc[0][r], part[0][r]), _mm512_add_epi32(part[1][r], part[2][r]));
    }
  }
  for (; k < quads; ++k) {
    __m512i wv[NP];
    for (int p = 0; p < NP; ++p) wv[p] = _mm512_load_si512(wp + p * panel_bytes + static_cast<size_t>(k) * 64);
#pragma GCC unroll 12
    for (int r = 0; r < MR; ++r) {
      const __m512i av = _mm512_set1_epi32(LoadQuad(rows[r], k));
      for (int p = 0; p < NP; ++p) acc[p][r] = DotQuads(acc[p][r], av, wv[p]);
    }
  }
  for (int p = 0; p < NP; ++p) {
    const size_t col0 = static_cast<size_t>(panel + p) * kQPanelWidth;
    const __m512 scale = _mm512_load_ps(w.scale + col0);
    const int pcols = MinI(kQPanelWidth, cols - p * kQPanelWidth);
    for (int r = 0; r < MR; r += 4) {
      // A group short of four rows repeats its last row (not stored).
      const __m512i r0 = ScaleRound(acc[p][r], scale, q);
      const __m512i r1 = r + 1 < MR ? ScaleRound(acc[p][r + 1], scale, q) : r0;
      const __m512i r2 = r + 2 < MR ? ScaleRound(acc[p][r + 2], scale, q) : r1;
      const __m512i r3 = r + 3 < MR ? ScaleRound(acc[p][r + 3], scale, q) : r2;
      StoreFourRows(r0, r1, r2, r3, q, c + static_cast<size_t>(r) * ldc + p * kQPanelWidth, ldc, MinI(4, MR - r),
                    pcols);
    }
  }
}

// The full 8 x 2 tile with its 16 accumulators as named variables: GCC 12
// keeps an accumulator array of this size in registers only with two
// register copies (and a spill) per vpdpbusd.
#define RELITE_ROWS8(X) X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7)
void Tile8x2(const uint8_t* a, size_t lda, const QGemmPanels& w, int panel, const int32_t* sums, const Requant& q,
             uint8_t* c, size_t ldc, int cols) {
  const int quads = w.quads;
  const size_t col0 = static_cast<size_t>(panel) * kQPanelWidth;
  const __m512i bias0 = _mm512_load_si512(w.bias + col0), bias1 = _mm512_load_si512(w.bias + col0 + kQPanelWidth);
#define RELITE_DECLARE(r) __m512i x##r = bias0, y##r = bias1;
  RELITE_ROWS8(RELITE_DECLARE)
#undef RELITE_DECLARE
  if (sums != nullptr) {
    const __m512i corr0 = _mm512_load_si512(w.sum_coef + col0);
    const __m512i corr1 = _mm512_load_si512(w.sum_coef + col0 + kQPanelWidth);
#define RELITE_CORRECT(r)                                      \
  {                                                            \
    const __m512i s = _mm512_set1_epi32(sums[r]);              \
    x##r = _mm512_add_epi32(x##r, _mm512_mullo_epi32(corr0, s)); \
    y##r = _mm512_add_epi32(y##r, _mm512_mullo_epi32(corr1, s)); \
  }
    RELITE_ROWS8(RELITE_CORRECT)
#undef RELITE_CORRECT
  }
  const size_t panel_bytes = static_cast<size_t>(quads) * 64;
  const uint8_t* w0 = w.packed4 + static_cast<size_t>(panel) * panel_bytes;
  const uint8_t* w1 = w0 + panel_bytes;
  const size_t end = static_cast<size_t>(quads) * 4;
  for (size_t k = 0; k < end; k += 4, w0 += 64, w1 += 64) {
    const __m512i v0 = _mm512_load_si512(w0), v1 = _mm512_load_si512(w1);
#define RELITE_STEP(r)                                                      \
  {                                                                         \
    int32_t quad;                                                           \
    std::memcpy(&quad, a + (r) * lda + k, sizeof(quad));                    \
    const __m512i av = _mm512_set1_epi32(quad);                             \
    x##r = DotQuads(x##r, av, v0);                               \
    y##r = DotQuads(y##r, av, v1);                               \
  }
    RELITE_ROWS8(RELITE_STEP)
#undef RELITE_STEP
  }
  const __m512 scale0 = _mm512_load_ps(w.scale + col0), scale1 = _mm512_load_ps(w.scale + col0 + kQPanelWidth);
  StoreFourRows(ScaleRound(x0, scale0, q), ScaleRound(x1, scale0, q), ScaleRound(x2, scale0, q),
                ScaleRound(x3, scale0, q), q, c, ldc, 4, kQPanelWidth);
  StoreFourRows(ScaleRound(x4, scale0, q), ScaleRound(x5, scale0, q), ScaleRound(x6, scale0, q),
                ScaleRound(x7, scale0, q), q, c + 4 * ldc, ldc, 4, kQPanelWidth);
  const int cols1 = cols - kQPanelWidth;
  StoreFourRows(ScaleRound(y0, scale1, q), ScaleRound(y1, scale1, q), ScaleRound(y2, scale1, q),
                ScaleRound(y3, scale1, q), q, c + kQPanelWidth, ldc, 4, cols1);
  StoreFourRows(ScaleRound(y4, scale1, q), ScaleRound(y5, scale1, q), ScaleRound(y6, scale1, q),
                ScaleRound(y7, scale1, q), q, c + 4 * ldc + kQPanelWidth, ldc, 4, cols1);
}
#undef RELITE_ROWS8

using TileFn = void (*)(const uint8_t*, size_t, const QGemmPanels&, int, const int32_t*, const Requant&, uint8_t*,
                        size_t, int);
template <int NP, int... kRows>
constexpr auto MakeTiles(std::integer_sequence<int, kRows...>) {
  return std::array<TileFn, sizeof...(kRows)>{Tile<kRows + 1, NP>...};
}
constexpr auto kTwoPanelTiles = MakeTiles<2>(std::make_integer_sequence<int, kRowsTwoPanels>{});
constexpr auto kOnePanelTiles = MakeTiles<1>(std::make_integer_sequence<int, kRowsOnePanel>{});

}  // namespace

void QGemmQuads(int m, const uint8_t* a, size_t lda, const QGemmPanels& w, const QGemmRequant& out, uint8_t* c,
                size_t ldc, int n_begin, int n_end) {
  Requant q;
  q.hi = _mm512_set1_ps(static_cast<float>(out.qmax - out.zero_point));
  q.zp16 = _mm512_set1_epi16(static_cast<int16_t>(out.zero_point));
  q.min8 = _mm512_set1_epi8(static_cast<char>(out.qmin));
  q.is_signed = out.is_signed;
  int32_t sums[kChunkRows];
  for (int m0 = 0; m0 < m; m0 += kChunkRows) {
    const int rows = MinI(kChunkRows, m - m0);
    const uint8_t* a0 = a + static_cast<size_t>(m0) * lda;
    if (w.sum_coef != nullptr) RowSums(a0, lda, rows, w.quads, sums);
    const int32_t* chunk_sums = w.sum_coef != nullptr ? sums : nullptr;
    // Panels outer: a panel pair's weights stay in L1 while the row tiles stream.
    for (int n0 = n_begin; n0 < n_end;) {
      const int panel = n0 / kQPanelWidth;
      const bool two = n_end - n0 > kQPanelWidth;
      const int cols = MinI(two ? 2 * kQPanelWidth : kQPanelWidth, n_end - n0);
      const int tile_rows = two ? kRowsTwoPanels : kRowsOnePanel;
      const TileFn* tiles = two ? kTwoPanelTiles.data() : kOnePanelTiles.data();
      for (int r = 0; r < rows; r += tile_rows) {
        const int mr = MinI(tile_rows, rows - r);
        const TileFn tile = two && mr == kRowsTwoPanels ? Tile8x2 : tiles[mr - 1];
        tile(a0 + static_cast<size_t>(r) * lda, lda, w, panel, chunk_sums != nullptr ? chunk_sums + r : nullptr,
                      q, c + static_cast<size_t>(m0 + r) * ldc + n0, ldc, cols);
      }
      n0 += cols;
    }
  }
}

}  // namespace relite::cpu::RELITE_ISA_NS
