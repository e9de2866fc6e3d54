// The 8-bit GEMM on byte rows for AVX-VNNI (256-bit VEX vpdpbusd: Intel
// Alder Lake and later, AMD Zen 5), the quads layout of
// src/kernels/cpu/internal/qgemm.h as the AVX-512 VNNI kernel reads it
// (x86_avx512vnni/qgemm_quads.cc): a panel's quad is 64 bytes, here two
// 256-bit halves (columns 0-7 and 8-15). 16 registers: tiles of 6 rows x
// 16 columns (12 accumulators, 2 weight halves, 1 broadcast). Bit-exact with
// the other paths (exact int32 sums, the same requantization).
//
// This level adds only this kernel to avx2's table (kernel_table.cc).
#include <immintrin.h>

#include <array>
#include <cstring>
#include <utility>

#include "src/kernels/cpu/isa/multi/variants.h"

namespace relite::cpu::RELITE_ISA_NS {
namespace {

constexpr int kTileRows = 6;
constexpr int kChunkRows = 96;  // rows whose sums are taken before the panels run over them

// acc += 4-byte dot products (unsigned a, signed w) per lane. {vex}: the
// AVX-VNNI encoding, which CPUs without AVX-512 run; asm also keeps GCC 12
// from copying the accumulator around every instruction.
inline __m256i DotQuads(__m256i acc, __m256i a, __m256i w) {
  asm("%{vex%} vpdpbusd %2, %1, %0" : "+x"(acc) : "x"(a), "x"(w));
  return acc;
}

inline int32_t LoadQuad(const uint8_t* row, int q) {
  int32_t v;
  std::memcpy(&v, row + 4 * static_cast<size_t>(q), sizeof(v));
  return v;
}

struct Requant {
  __m256 hi;     // qmax - zp
  __m256i zp16;  // zp as int16
  __m256i min8;  // qmin as bytes
  bool is_signed;
};

// The XNNPACK fp32 requantization as in the AVX-512 VNNI kernel: float upper
// clamp, round to nearest even, saturating packs (+ zero point), lower clamp
// in bytes; equal to the per-value form of the other paths.
inline __m256i ScaleRound(__m256i acc, __m256 scale, const Requant& q) {
  return _mm256_cvtps_epi32(_mm256_min_ps(_mm256_mul_ps(_mm256_cvtepi32_ps(acc), scale), q.hi));
}

// One row's 16 columns (lo: 0-7, hi: 8-15) as int16 in column order, + zp.
inline __m256i RowWords(__m256i lo, __m256i hi, const Requant& q) {
  return _mm256_adds_epi16(_mm256_permute4x64_epi64(_mm256_packs_epi32(lo, hi), 0xD8), q.zp16);
}

inline void StoreRow(__m128i bytes, uint8_t* dst, int cols) {
  if (cols >= kQPanelWidth) {
    _mm_storeu_si128(reinterpret_cast<__m128i*>(dst), bytes);
  } else {
    alignas(16) uint8_t tmp[16];
    _mm_store_si128(reinterpret_cast<__m128i*>(tmp), bytes);
    std::memcpy(dst, tmp, static_cast<size_t>(cols));
  }
}

// Rows a and b (int16 words) to bytes; stores a, and b when `both`.
inline void StoreTwoRows(__m256i a, __m256i b, const Requant& q, uint8_t* dst, size_t ldc, bool both, int cols) {
  __m256i v = q.is_signed ? _mm256_packs_epi16(a, b) : _mm256_packus_epi16(a, b);
  v = _mm256_permute4x64_epi64(v, 0xD8);
  v = q.is_signed ? _mm256_max_epi8(v, q.min8) : _mm256_max_epu8(v, q.min8);
  StoreRow(_mm256_castsi256_si128(v), dst, cols);
  if (both) StoreRow(_mm256_extracti128_si256(v, 1), dst + ldc, cols);
}

int32_t RowSum(const uint8_t* a, int quads) {
  const size_t n = static_cast<size_t>(quads) * 4;
  __m256i acc = _mm256_setzero_si256();
  size_t i = 0;
  for (; i + 32 <= n; i += 32) {
    acc = _mm256_add_epi64(acc, _mm256_sad_epu8(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(a + i)),
                                                _mm256_setzero_si256()));
  }
  alignas(8) uint64_t lanes[4];
  _mm256_store_si256(reinterpret_cast<__m256i*>(lanes), acc);
  uint64_t sum = lanes[0] + lanes[1] + lanes[2] + lanes[3];
  for (; i < n; ++i) sum += a[i];
  return static_cast<int32_t>(sum);
}

template <int MR>
void Tile(const uint8_t* a, size_t lda, const QGemmPanels& w, int panel, const int32_t* sums, const Requant& q,
          uint8_t* c, size_t ldc, int cols) {
  const int quads = w.quads;
  const size_t col0 = static_cast<size_t>(panel) * kQPanelWidth;
  const __m256i bias_lo = _mm256_load_si256(reinterpret_cast<const __m256i*>(w.bias + col0));
  const __m256i bias_hi = _mm256_load_si256(reinterpret_cast<const __m256i*>(w.bias + col0 + 8));
  __m256i lo[MR], hi[MR];
  for (int r = 0; r < MR; ++r) {
    lo[r] = bias_lo;
    hi[r] = bias_hi;
  }
  if (sums != nullptr) {
    const __m256i coef_lo = _mm256_load_si256(reinterpret_cast<const __m256i*>(w.sum_coef + col0));
    const __m256i coef_hi = _mm256_load_si256(reinterpret_cast<const __m256i*>(w.sum_coef + col0 + 8));
    for (int r = 0; r < MR; ++r) {
      const __m256i s = _mm256_set1_epi32(sums[r]);
      lo[r] = _mm256_add_epi32(lo[r], _mm256_mullo_epi32(coef_lo, s));
      hi[r] = _mm256_add_epi32(hi[r], _mm256_mullo_epi32(coef_hi, s));
    }
  }
  const uint8_t* wp = w.packed4 + static_cast<size_t>(panel) * quads * 64;
  for (int k = 0; k < quads; ++k, wp += 64) {
    const __m256i w_lo = _mm256_load_si256(reinterpret_cast<const __m256i*>(wp));
    const __m256i w_hi = _mm256_load_si256(reinterpret_cast<const __m256i*>(wp + 32));
    for (int r = 0; r < MR; ++r) {
      const __m256i av = _mm256_set1_epi32(LoadQuad(a + static_cast<size_t>(r) * lda, k));
      lo[r] = DotQuads(lo[r], av, w_lo);
      hi[r] = DotQuads(hi[r], av, w_hi);
    }
  }
  const __m256 scale_lo = _mm256_load_ps(w.scale + col0), scale_hi = _mm256_load_ps(w.scale + col0 + 8);
  for (int r = 0; r < MR; r += 2) {
    const __m256i ra = RowWords(ScaleRound(lo[r], scale_lo, q), ScaleRound(hi[r], scale_hi, q), q);
    const bool both = r + 1 < MR;
    const __m256i rb = both ? RowWords(ScaleRound(lo[r + 1], scale_lo, q), ScaleRound(hi[r + 1], scale_hi, q), q) : ra;
    StoreTwoRows(ra, rb, q, c + static_cast<size_t>(r) * ldc, ldc, both, cols);
  }
}

using TileFn = void (*)(const uint8_t*, size_t, const QGemmPanels&, int, const int32_t*, const Requant&, uint8_t*,
                        size_t, int);
template <int... kRows>
constexpr auto MakeTiles(std::integer_sequence<int, kRows...>) {
  return std::array<TileFn, sizeof...(kRows)>{Tile<kRows + 1>...};
}
constexpr auto kTiles = MakeTiles(std::make_integer_sequence<int, kTileRows>{});

void QGemmQuads(int m, const uint8_t* a, size_t lda, const QGemmPanels& w, const QGemmRequant& out, uint8_t* c,
                size_t ldc, int n_begin, int n_end) {
  Requant q;
  q.hi = _mm256_set1_ps(static_cast<float>(out.qmax - out.zero_point));
  q.zp16 = _mm256_set1_epi16(static_cast<int16_t>(out.zero_point));
  q.min8 = _mm256_set1_epi8(static_cast<char>(out.qmin));
  q.is_signed = out.is_signed;
  int32_t sums[kChunkRows];
  for (int m0 = 0; m0 < m; m0 += kChunkRows) {
    const int rows = MinI(kChunkRows, m - m0);
    const uint8_t* a0 = a + static_cast<size_t>(m0) * lda;
    if (w.sum_coef != nullptr) {
      for (int r = 0; r < rows; ++r) sums[r] = RowSum(a0 + static_cast<size_t>(r) * lda, w.quads);
    }
    // Panels outer: a panel's weights stay in L1 while the row tiles stream.
    for (int n0 = n_begin; n0 < n_end; n0 += kQPanelWidth) {
      const int panel = n0 / kQPanelWidth;
      const int cols = MinI(kQPanelWidth, n_end - n0);
      for (int r = 0; r < rows; r += kTileRows) {
        const int mr = MinI(kTileRows, rows - r);
        kTiles[mr - 1](a0 + static_cast<size_t>(r) * lda, lda, w, panel,
                       w.sum_coef != nullptr ? sums + r : nullptr, q, c + static_cast<size_t>(m0 + r) * ldc + n0, ldc,
                       cols);
      }
    }
  }
}

}  // namespace

void FillKernels(CpuKernels* k) { k->qgemm_quads = QGemmQuads; }

}  // namespace relite::cpu::RELITE_ISA_NS
