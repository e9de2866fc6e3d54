// The 8-bit GEMM on byte rows for Armv8.2 dotprod (the "quads" layout of
// src/kernels/cpu/internal/qgemm.h): udot multiplies 4 unsigned bytes by 4
// unsigned bytes and adds the 4 products to a uint32 lane, 16 products per
// instruction. Arm has no unsigned-by-signed form (vpdpbusd's), so this
// variant's table sets qgemm_quads_unsigned_weights: the weights are packed
// as unsigned bytes (int8 W + 128, uint8 W as is) and the row-sum correction
// (sum_coef) takes the zero point and the +128 out again, in wrapping int32
// arithmetic:
//   sum_k a * (W - w_zp) = udot sum + coef[n] * sum_k a.
// A quad of k for a panel's 16 columns is four 16-byte registers (columns
// 4g..4g+3 each); a row's four quads are one 16-byte load, and
// vdotq_laneq_u32 takes each quad from its lane. Sums are exact modulo 2^32
// (as the int32 lanes of the other paths), so the result is bit-exact with
// them.
//
// Built twice: for the dotprod level (udot) and, with RELITE_ISA_I8MM, for
// the i8mm level, whose mixed-sign dot products (sudot with an activation
// quad of a lane, usdot) are vpdpbusd's pair: there the weights are signed
// bytes (int8 W, uint8 W - 128; the table leaves qgemm_quads_unsigned_weights
// off), so symmetric int8 weights need no row sums. The i8mm build adds only
// this kernel to dotprod's table (FillKernels below).
#include <arm_neon.h>

#include <cstring>

#include "src/kernels/cpu/isa/multi/variants.h"

namespace relite::cpu::RELITE_ISA_NS {
namespace {

// Row tile: 4 rows x 16 columns, 16 accumulators, 4 row registers (four
// quads each) and 4 weight registers.
constexpr int kTileRows = 4;
// Rows whose sums are taken together before the panels run over them.
constexpr int kChunkRows = 96;

// The XNNPACK "fp32" requantization: the float upper clamp, round to nearest
// even (fcvtns), saturating narrows to 16 bits (+ zero point) and 8 bits,
// and the lower clamp in bytes. Equal to clamping in float and adding the
// zero point after rounding (everything below the lower clamp saturates to
// it), so bit-exact with the per-value form of the portable path.
struct Requant {
  float32x4_t hi;   // qmax - zp
  int16x8_t zp16;   // zp as int16
  uint8x16_t min8;  // qmin as bytes
  bool is_signed;
};

// The sum of a row's bytes (k rounded up to quads, the padding zero).
int32_t RowSum(const uint8_t* a, int quads) {
  const size_t n = static_cast<size_t>(quads) * 4;
  const uint8x16_t ones = vdupq_n_u8(1);
  uint32x4_t acc0 = vdupq_n_u32(0), acc1 = vdupq_n_u32(0);
  size_t i = 0;
  for (; i + 32 <= n; i += 32) {
    acc0 = vdotq_u32(acc0, vld1q_u8(a + i), ones);
    acc1 = vdotq_u32(acc1, vld1q_u8(a + i + 16), ones);
  }
  if (i + 16 <= n) {
    acc0 = vdotq_u32(acc0, vld1q_u8(a + i), ones);
    i += 16;
  }
  if (i < n) {
    // 4, 8 or 12 bytes left: nothing past the row's last quad is read.
    uint8_t tail[16] = {};
    std::memcpy(tail, a + i, n - i);
    acc1 = vdotq_u32(acc1, vld1q_u8(tail), ones);
  }
  return static_cast<int32_t>(vaddvq_u32(vaddq_u32(acc0, acc1)));
}

// acc += the 4-byte dot products of the weight quads `w` (16 columns, 4 per
// register) and quad L of `a`: udot, or with I8MM sudot (signed weights).
template <int L>
inline uint32x4_t DotLane(uint32x4_t acc, uint8x16_t w, uint8x16_t a) {
#if defined(RELITE_ISA_I8MM)
  return vreinterpretq_u32_s32(vsudotq_laneq_s32(vreinterpretq_s32_u32(acc), vreinterpretq_s8_u8(w), a, L));
#else
  return vdotq_laneq_u32(acc, w, a, L);
#endif
}
// The same with `a` holding one quad in every lane.
inline uint32x4_t DotQuad(uint32x4_t acc, uint8x16_t w, uint8x16_t a) {
#if defined(RELITE_ISA_I8MM)
  return vreinterpretq_u32_s32(vusdotq_s32(vreinterpretq_s32_u32(acc), a, vreinterpretq_s8_u8(w)));
#else
  return vdotq_u32(acc, w, a);
#endif
}

inline uint8x16_t LoadQuadSplat(const uint8_t* row, int q) {
  uint32_t v;
  std::memcpy(&v, row + 4 * static_cast<size_t>(q), sizeof(v));
  return vreinterpretq_u8_u32(vdupq_n_u32(v));
}

// Quad L (0..3) of each row's 4-quad register `av` times the panel's quad at
// `wq` (64 bytes), into accumulator set S.
template <int L, int MR, int NS>
inline void LaneStep(uint32x4_t (&acc)[NS][MR][4], const uint8_t* wq, const uint8x16_t (&av)[MR]) {
  constexpr int s = NS == 1 ? 0 : L % NS;
  const uint8x16_t w0 = vld1q_u8(wq), w1 = vld1q_u8(wq + 16), w2 = vld1q_u8(wq + 32), w3 = vld1q_u8(wq + 48);
  for (int r = 0; r < MR; ++r) {
    acc[s][r][0] = DotLane<L>(acc[s][r][0], w0, av[r]);
    acc[s][r][1] = DotLane<L>(acc[s][r][1], w1, av[r]);
    acc[s][r][2] = DotLane<L>(acc[s][r][2], w2, av[r]);
    acc[s][r][3] = DotLane<L>(acc[s][r][3], w3, av[r]);
  }
}

// One row's 16 accumulators of a panel to bytes; stores the first `cols`.
inline void StoreRow(const uint32x4_t (&acc)[4], const float32x4_t (&scale)[4], const Requant& q, uint8_t* dst,
                     int cols) {
  int32x4_t v[4];
  for (int g = 0; g < 4; ++g) {
    const float32x4_t f = vmulq_f32(vcvtq_f32_s32(vreinterpretq_s32_u32(acc[g])), scale[g]);
    v[g] = vcvtnq_s32_f32(vminq_f32(f, q.hi));
  }
  const int16x8_t lo = vqaddq_s16(vqmovn_high_s32(vqmovn_s32(v[0]), v[1]), q.zp16);
  const int16x8_t hi = vqaddq_s16(vqmovn_high_s32(vqmovn_s32(v[2]), v[3]), q.zp16);
  uint8x16_t out;
  if (q.is_signed) {
    out = vreinterpretq_u8_s8(vmaxq_s8(vqmovn_high_s16(vqmovn_s16(lo), hi), vreinterpretq_s8_u8(q.min8)));
  } else {
    out = vmaxq_u8(vqmovun_high_s16(vqmovun_s16(lo), hi), q.min8);
  }
  if (cols >= kQPanelWidth) {
    vst1q_u8(dst, out);
  } else {
    uint8_t bytes[kQPanelWidth];
    vst1q_u8(bytes, out);
    std::memcpy(dst, bytes, static_cast<size_t>(cols));
  }
}

// MR rows x one panel. `sums` (MR row sums) is null when no column needs the
// row-sum correction. One or two rows keep two accumulator sets (even and
// odd quads) so that more independent udot chains are in flight.
template <int MR>
void Tile(const uint8_t* a, size_t lda, const QGemmPanels& w, int panel, const int32_t* sums, const Requant& q,
          uint8_t* c, size_t ldc, int cols) {
  constexpr int NS = MR <= 2 ? 2 : 1;
  const int quads = w.quads;
  const size_t col0 = static_cast<size_t>(panel) * kQPanelWidth;
  uint32x4_t acc[NS][MR][4];
  for (int g = 0; g < 4; ++g) {
    const int32x4_t bias = vld1q_s32(w.bias + col0 + 4 * g);
    const int32x4_t coef = sums != nullptr ? vld1q_s32(w.sum_coef + col0 + 4 * g) : vdupq_n_s32(0);
    for (int r = 0; r < MR; ++r) {
      // bias + coef * sum, wrapping as the int32 lanes of the other paths.
      acc[0][r][g] = vreinterpretq_u32_s32(sums != nullptr ? vmlaq_n_s32(bias, coef, sums[r]) : bias);
      for (int s = 1; s < NS; ++s) acc[s][r][g] = vdupq_n_u32(0);
    }
  }
  const uint8_t* rows[MR];
  for (int r = 0; r < MR; ++r) rows[r] = a + static_cast<size_t>(r) * lda;
  const uint8_t* wp = w.packed4 + static_cast<size_t>(panel) * static_cast<size_t>(quads) * 64;
  int k = 0;
  for (; k + 4 <= quads; k += 4, wp += 256) {
    uint8x16_t av[MR];
    for (int r = 0; r < MR; ++r) av[r] = vld1q_u8(rows[r] + 4 * static_cast<size_t>(k));
    LaneStep<0>(acc, wp, av);
    LaneStep<1>(acc, wp + 64, av);
    LaneStep<2>(acc, wp + 128, av);
    LaneStep<3>(acc, wp + 192, av);
  }
  // The last 1-3 quads, one 4-byte load each (the row may end there).
  for (; k < quads; ++k, wp += 64) {
    const uint8x16_t w0 = vld1q_u8(wp), w1 = vld1q_u8(wp + 16), w2 = vld1q_u8(wp + 32), w3 = vld1q_u8(wp + 48);
    for (int r = 0; r < MR; ++r) {
      const uint8x16_t av = LoadQuadSplat(rows[r], k);
      acc[0][r][0] = DotQuad(acc[0][r][0], w0, av);
      acc[0][r][1] = DotQuad(acc[0][r][1], w1, av);
      acc[0][r][2] = DotQuad(acc[0][r][2], w2, av);
      acc[0][r][3] = DotQuad(acc[0][r][3], w3, av);
    }
  }
  for (int s = 1; s < NS; ++s) {
    for (int r = 0; r < MR; ++r) {
      for (int g = 0; g < 4; ++g) acc[0][r][g] = vaddq_u32(acc[0][r][g], acc[s][r][g]);
    }
  }
  float32x4_t scale[4];
  for (int g = 0; g < 4; ++g) scale[g] = vld1q_f32(w.scale + col0 + 4 * g);
  for (int r = 0; r < MR; ++r) StoreRow(acc[0][r], scale, q, c + static_cast<size_t>(r) * ldc, cols);
}

using TileFn = void (*)(const uint8_t*, size_t, const QGemmPanels&, int, const int32_t*, const Requant&, uint8_t*,
                        size_t, int);
constexpr TileFn kTiles[kTileRows] = {Tile<1>, Tile<2>, Tile<3>, Tile<4>};

}  // namespace

void QGemmQuads(int m, const uint8_t* a, size_t lda, const QGemmPanels& w, const QGemmRequant& out, uint8_t* c,
                size_t ldc, int n_begin, int n_end) {
  Requant q;
  q.hi = vdupq_n_f32(static_cast<float>(out.qmax - out.zero_point));
  q.zp16 = vdupq_n_s16(static_cast<int16_t>(out.zero_point));
  q.min8 = vdupq_n_u8(static_cast<uint8_t>(out.qmin));
  q.is_signed = out.is_signed;
  int32_t sums[kChunkRows];
  for (int m0 = 0; m0 < m; m0 += kChunkRows) {
    const int rows = MinI(kChunkRows, m - m0);
    const uint8_t* a0 = a + static_cast<size_t>(m0) * lda;
    if (w.sum_coef != nullptr) {
      for (int r = 0; r < rows; ++r) sums[r] = RowSum(a0 + static_cast<size_t>(r) * lda, w.quads);
    }
    const int32_t* chunk_sums = w.sum_coef != nullptr ? sums : nullptr;
    // Panels outer: a panel's weights stay in L1 while the row tiles stream.
    for (int n0 = n_begin; n0 < n_end; n0 += kQPanelWidth) {
      const int panel = n0 / kQPanelWidth;
      const int cols = MinI(kQPanelWidth, n_end - n0);
      for (int r = 0; r < rows; r += kTileRows) {
        const int mr = MinI(kTileRows, rows - r);
        kTiles[mr - 1](a0 + static_cast<size_t>(r) * lda, lda, w, panel,
                       chunk_sums != nullptr ? chunk_sums + r : nullptr, q, c + static_cast<size_t>(m0 + r) * ldc + n0,
                       ldc, cols);
      }
    }
  }
}

#if defined(RELITE_ISA_I8MM)
void FillKernels(CpuKernels* k) {
  k->qgemm_quads = QGemmQuads;
  k->qgemm_quads_unsigned_weights = false;  // sudot/usdot take signed weight bytes
}
#endif

}  // namespace relite::cpu::RELITE_ISA_NS
