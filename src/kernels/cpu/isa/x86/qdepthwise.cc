// The 8-bit DEPTHWISE_CONV_2D rows for AVX2 and above (see
// src/kernels/cpu/quantized/depthwise_conv_2d.cc): two taps interleaved per
// vpmaddwd, 16 channels a step, weights in the lane order that produces.
#include <immintrin.h>

#include <cstring>

#include "src/kernels/cpu/isa/multi/variants.h"
#include "src/kernels/cpu/isa/x86/dot_pairs.h"

namespace relite::cpu::RELITE_ISA_NS {
namespace {

// What the 16-channel blocks of one row share: the input's XOR to 0..255 and
// the requantization's clamp bounds and output zero point.
struct BlockConstants {
  __m128i xor_mask;
  __m256 lo, hi;
  __m256i out_zp;
  bool is_signed;
};

// XNNPACK's fp32 requantization of one accumulator (as the vector lanes:
// clamp, round half to even, add the zero point).
inline int32_t RequantizeOne(int32_t acc, float scale, int32_t zero_point, int32_t qmin, int32_t qmax) {
  const __m128 f = _mm_mul_ss(_mm_cvtsi32_ss(_mm_setzero_ps(), acc), _mm_set_ss(scale));
  const __m128 c = _mm_min_ss(_mm_max_ss(f, _mm_set_ss(static_cast<float>(qmin - zero_point))),
                              _mm_set_ss(static_cast<float>(qmax - zero_point)));
  return _mm_cvtss_si32(c) + zero_point;
}

int32_t Scalar(const QDepthwiseJob& j, const uint8_t* const* taps, int o) {
  const int c = o / j.multiplier;
  int32_t acc = j.bias[static_cast<size_t>(o)];
  for (int t = 0; t < j.taps; ++t) {
    acc += static_cast<int32_t>(static_cast<uint8_t>(taps[t][c] ^ j.xor_mask)) * j.wplain[static_cast<size_t>(t) * j.out_c + o];
  }
  return RequantizeOne(acc, j.scale[static_cast<size_t>(o)], j.out_zero_point, j.qmin, j.qmax);
}

// 16 input bytes at p as int16 in 0..255.
inline __m256i WidenTap(const uint8_t* p, __m128i xor_mask) {
  return _mm256_cvtepu8_epi16(_mm_xor_si128(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)), xor_mask));
}

// Requantizes two accumulators (scales sa, sb lane by lane) and packs them
// to int16 per 128-bit lane: [A0-3 B0-3 | A4-7 B4-7].
inline __m256i RequantizeToInt16(__m256i acc_a, __m256i acc_b, __m256 sa, __m256 sb, const BlockConstants& k) {
  const __m256 fa = _mm256_min_ps(_mm256_max_ps(_mm256_mul_ps(_mm256_cvtepi32_ps(acc_a), sa), k.lo), k.hi);
  const __m256 fb = _mm256_min_ps(_mm256_max_ps(_mm256_mul_ps(_mm256_cvtepi32_ps(acc_b), sb), k.lo), k.hi);
  return _mm256_packs_epi32(_mm256_add_epi32(_mm256_cvtps_epi32(fa), k.out_zp),
                            _mm256_add_epi32(_mm256_cvtps_epi32(fb), k.out_zp));
}

// The nine taps of a 3x3 window as five tap pairs onto two accumulators:
// load(t) widens tap t; the tenth tap's weights are zero, so it repeats the
// ninth. Lane order as the weights were packed (unpacklo/hi of the pair).
template <typename LoadTap>
inline void Accumulate3x3(LoadTap&& load, const __m256i w[10], __m256i* acc_a, __m256i* acc_b) {
#pragma GCC unroll 5
  for (int p = 0; p < 5; ++p) {
    const __m256i x0 = load(2 * p);
    const __m256i x1 = p < 4 ? load(2 * p + 1) : x0;
    *acc_a = _mm256_add_epi32(*acc_a, _mm256_madd_epi16(_mm256_unpacklo_epi16(x0, x1), w[2 * p]));
    *acc_b = _mm256_add_epi32(*acc_b, _mm256_madd_epi16(_mm256_unpackhi_epi16(x0, x1), w[2 * p + 1]));
  }
}

// Requantizes two accumulators of a 16-channel block (lane order A: 0-3,
// 8-11; B: 4-7, 12-15) and stores the 16 bytes.
inline void StoreBlock(__m256i acc_a, __m256i acc_b, __m256 sa, __m256 sb, const BlockConstants& k, uint8_t* out) {
  // [A0-3 B0-3 | A4-7 B4-7] = channels 0-7 | 8-15.
  const __m256i w16 = RequantizeToInt16(acc_a, acc_b, sa, sb, k);
  const __m128i l = _mm256_castsi256_si128(w16), h = _mm256_extracti128_si256(w16, 1);
  const __m128i bytes = k.is_signed ? _mm_packs_epi16(l, h) : _mm_packus_epi16(l, h);
  _mm_storeu_si128(reinterpret_cast<__m128i*>(out), bytes);
}

// 8 input bytes at p as int16 in 0..255.
inline __m128i WidenTap8(const uint8_t* p, __m128i xor_mask) {
  return _mm_cvtepu8_epi16(_mm_xor_si128(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(p)), xor_mask));
}

void RunBlock8(const QDepthwiseJob& j, const uint8_t* const* taps, int c0, const BlockConstants& k, uint8_t* out) {
  __m128i acc_lo = _mm_load_si128(reinterpret_cast<const __m128i*>(j.bias8));
  __m128i acc_hi = _mm_load_si128(reinterpret_cast<const __m128i*>(j.bias8 + 4));
  const int16_t* wp = j.w8;
  const __m128i xor_mask = k.xor_mask;
  for (int p = 0; p < j.tap_pairs; ++p, wp += 16) {
    const __m128i x0 = WidenTap8(taps[2 * p] + c0, xor_mask);
    const __m128i x1 = WidenTap8(taps[2 * p + 1] + c0, xor_mask);
    acc_lo = _mm_add_epi32(acc_lo, _mm_madd_epi16(_mm_unpacklo_epi16(x0, x1),
                                                  _mm_load_si128(reinterpret_cast<const __m128i*>(wp))));
    acc_hi = _mm_add_epi32(acc_hi, _mm_madd_epi16(_mm_unpackhi_epi16(x0, x1),
                                                  _mm_load_si128(reinterpret_cast<const __m128i*>(wp + 8))));
  }
  // The 16-channel blocks' requantization on 4 lanes at a time.
  const __m128 lo = _mm256_castps256_ps128(k.lo), hi = _mm256_castps256_ps128(k.hi);
  const __m128i zp = _mm256_castsi256_si128(k.out_zp);
  const __m128 f_lo = _mm_min_ps(_mm_max_ps(_mm_mul_ps(_mm_cvtepi32_ps(acc_lo), _mm_load_ps(j.scale8)), lo), hi);
  const __m128 f_hi =
      _mm_min_ps(_mm_max_ps(_mm_mul_ps(_mm_cvtepi32_ps(acc_hi), _mm_load_ps(j.scale8 + 4)), lo), hi);
  const __m128i w16 =
      _mm_packs_epi32(_mm_add_epi32(_mm_cvtps_epi32(f_lo), zp), _mm_add_epi32(_mm_cvtps_epi32(f_hi), zp));
  const __m128i bytes = k.is_signed ? _mm_packs_epi16(w16, w16) : _mm_packus_epi16(w16, w16);
  _mm_storel_epi64(reinterpret_cast<__m128i*>(out), bytes);
}

#if defined(__AVX512VNNI__)
// 64 channels of a 3x3 window with vpdpbusd: the taps' bytes are
// interleaved four at a time into one dword per channel (unpack bytes, then
// words), so each step is 4 taps x 16 channels; three quads (the last
// holding tap 8 and zeros) per pixel. The saturating packs of the epilogue
// undo the interleave's channel order (see QDepthwiseJob::wquads).
struct QuadBlock {
  __m512i w[3][4];
  __m512i bias[4], coef[4];
  __m512 scale[4];
  __m512 hi;
  __m512i zp16, min8, xor_mask;
  bool is_signed;

  QuadBlock(const QDepthwiseJob& j, int c0) {
    const int blk = c0 / 64;
    const uint8_t* wb = j.wquads + static_cast<size_t>(blk) * 3 * 4 * 64;
    for (int q = 0; q < 3; ++q) {
      for (int g = 0; g < 4; ++g) w[q][g] = _mm512_load_si512(wb + (q * 4 + g) * 64);
    }
    for (int g = 0; g < 4; ++g) {
      bias[g] = _mm512_load_si512(j.qbias + blk * 64 + g * 16);
      scale[g] = _mm512_load_ps(j.qscale + blk * 64 + g * 16);
      coef[g] = j.qcoef != nullptr ? _mm512_load_si512(j.qcoef + blk * 64 + g * 16) : _mm512_setzero_si512();
    }
    hi = _mm512_set1_ps(static_cast<float>(j.qmax - j.out_zero_point));
    zp16 = _mm512_set1_epi16(static_cast<int16_t>(j.out_zero_point));
    min8 = _mm512_set1_epi8(static_cast<char>(j.qmin));
    xor_mask = _mm512_set1_epi8(static_cast<char>(j.xor_mask));
    is_signed = j.is_signed;
  }
};

// One pixel: tap t's 64 bytes at tap[t] + offset.
template <bool kCorrect>
inline void QuadPixel3x3(const QuadBlock& k, const uint8_t* const* tap, size_t offset, uint8_t* out) {
  const __m512i ones = _mm512_set1_epi8(1);
  const __m512i first_tap = _mm512_set1_epi32(1);  // the last quad: tap 8 only
  auto load = [&](int t) { return _mm512_xor_si512(_mm512_loadu_si512(tap[t] + offset), k.xor_mask); };
  __m512i acc[4] = {k.bias[0], k.bias[1], k.bias[2], k.bias[3]};
  __m512i sum[4] = {_mm512_setzero_si512(), _mm512_setzero_si512(), _mm512_setzero_si512(), _mm512_setzero_si512()};
#pragma GCC unroll 3
  for (int q = 0; q < 3; ++q) {
    const __m512i t0 = load(4 * q);
    const __m512i t1 = q < 2 ? load(4 * q + 1) : _mm512_setzero_si512();
    const __m512i t2 = q < 2 ? load(4 * q + 2) : _mm512_setzero_si512();
    const __m512i t3 = q < 2 ? load(4 * q + 3) : _mm512_setzero_si512();
    const __m512i ab_lo = _mm512_unpacklo_epi8(t0, t1), ab_hi = _mm512_unpackhi_epi8(t0, t1);
    const __m512i cd_lo = _mm512_unpacklo_epi8(t2, t3), cd_hi = _mm512_unpackhi_epi8(t2, t3);
    const __m512i x[4] = {_mm512_unpacklo_epi16(ab_lo, cd_lo), _mm512_unpackhi_epi16(ab_lo, cd_lo),
                          _mm512_unpacklo_epi16(ab_hi, cd_hi), _mm512_unpackhi_epi16(ab_hi, cd_hi)};
    for (int g = 0; g < 4; ++g) {
      acc[g] = DotQuads(acc[g], x[g], k.w[q][g]);
      if constexpr (kCorrect) sum[g] = DotQuads(sum[g], x[g], q < 2 ? ones : first_tap);
    }
  }
  __m512i r[4];
  for (int g = 0; g < 4; ++g) {
    if constexpr (kCorrect) acc[g] = _mm512_add_epi32(acc[g], _mm512_mullo_epi32(sum[g], k.coef[g]));
    r[g] = _mm512_cvtps_epi32(_mm512_min_ps(_mm512_mul_ps(_mm512_cvtepi32_ps(acc[g]), k.scale[g]), k.hi));
  }
  // As in the byte GEMM: saturating packs (+ zero point), the lower clamp in
  // bytes; equal to clamping in float first. Lane L of the packs holds
  // channels 16L..16L+15 in order.
  const __m512i r01 = _mm512_adds_epi16(_mm512_packs_epi32(r[0], r[1]), k.zp16);
  const __m512i r23 = _mm512_adds_epi16(_mm512_packs_epi32(r[2], r[3]), k.zp16);
  const __m512i bytes = k.is_signed ? _mm512_max_epi8(_mm512_packs_epi16(r01, r23), k.min8)
                                    : _mm512_max_epu8(_mm512_packus_epi16(r01, r23), k.min8);
  _mm512_storeu_si512(out, bytes);
}

template <bool kCorrect>
void RunQuadBlock3x3(const QDepthwiseJob& j, const uint8_t* const* tap, size_t first, size_t step, size_t c_total,
                     int c0, uint8_t* out_row) {
  const QuadBlock k(j, c0);
  size_t offset = first + static_cast<size_t>(c0);
  uint8_t* out = out_row + static_cast<size_t>(j.interior_begin) * c_total + c0;
  for (int ox = j.interior_begin; ox < j.interior_end; ++ox, offset += step, out += c_total) {
    QuadPixel3x3<kCorrect>(k, tap, offset, out);
  }
}

// The quads part of a border pixel (padded taps point at the zero-point row).
void RunQuadPixel(const QDepthwiseJob& j, const uint8_t* const* taps, uint8_t* out) {
  for (int c0 = 0; c0 < j.quad_c; c0 += 64) {
    const QuadBlock k(j, c0);
    if (j.qcoef != nullptr) {
      QuadPixel3x3<true>(k, taps, static_cast<size_t>(c0), out + c0);
    } else {
      QuadPixel3x3<false>(k, taps, static_cast<size_t>(c0), out + c0);
    }
  }
}
#endif

void RunPixel(const QDepthwiseJob& j, int b, int oy, int ox, const uint8_t** taps,
              const BlockConstants* vector_part) {
  const uint8_t* input = j.input;
  uint8_t* output = j.output;
  const size_t image = static_cast<size_t>(j.in_h) * j.in_w * j.in_c;
  const uint8_t* zp = j.zp_row;
  for (int ky = 0; ky < j.filter_h; ++ky) {
    const int iy = oy * j.stride_h - j.pad_top + ky * j.dilation_h;
    for (int kx = 0; kx < j.filter_w; ++kx) {
      const int ix = ox * j.stride_w - j.pad_left + kx * j.dilation_w;
      const bool inside = iy >= 0 && iy < j.in_h && ix >= 0 && ix < j.in_w;
      taps[ky * j.filter_w + kx] = inside ? input + b * image + (static_cast<size_t>(iy) * j.in_w + ix) * j.in_c : zp;
    }
  }
  if (j.taps & 1) taps[j.taps] = zp;
  uint8_t* out = output + ((static_cast<size_t>(b) * j.out_h + oy) * j.out_w + ox) * j.out_c;
  if (vector_part != nullptr) {
    const BlockConstants k = *vector_part;  // a copy: byte stores through `out` could alias the original
    int c_begin = 0;
#if defined(__AVX512VNNI__)
    if (j.wquads != nullptr && j.taps == 9) {
      RunQuadPixel(j, taps, out);
      c_begin = j.quad_c;
    }
#endif
    for (int c0 = c_begin; c0 < j.vec_c; c0 += 16) {
      const int blk = c0 / 16;
      __m256i acc_a = _mm256_load_si256(reinterpret_cast<const __m256i*>(j.vbias + blk * 16));
      __m256i acc_b = _mm256_load_si256(reinterpret_cast<const __m256i*>(j.vbias + blk * 16 + 8));
      const int16_t* wp = j.wpacked + static_cast<size_t>(blk) * j.tap_pairs * 32;
      for (int p = 0; p < j.tap_pairs; ++p, wp += 32) {
        const __m256i x0 = WidenTap(taps[2 * p] + c0, k.xor_mask);
        const __m256i x1 = WidenTap(taps[2 * p + 1] + c0, k.xor_mask);
        const __m256i w0 = _mm256_load_si256(reinterpret_cast<const __m256i*>(wp));
        const __m256i w1 = _mm256_load_si256(reinterpret_cast<const __m256i*>(wp + 16));
        acc_a = _mm256_add_epi32(acc_a, _mm256_madd_epi16(_mm256_unpacklo_epi16(x0, x1), w0));
        acc_b = _mm256_add_epi32(acc_b, _mm256_madd_epi16(_mm256_unpackhi_epi16(x0, x1), w1));
      }
      StoreBlock(acc_a, acc_b, _mm256_load_ps(j.vscale + blk * 16), _mm256_load_ps(j.vscale + blk * 16 + 8),
                 k, out + c0);
    }
    if (j.block8) RunBlock8(j, taps, j.vec_c, k, out + j.vec_c);
  }
  for (int o = j.vec_end; o < j.out_c; ++o) out[o] = static_cast<uint8_t>(Scalar(j, taps, o));
}

#if defined(__AVX512BW__)
inline __m512i Concat(const void* lo, const void* hi) {
  return _mm512_inserti64x4(_mm512_castsi256_si512(_mm256_load_si256(static_cast<const __m256i*>(lo))),
                            _mm256_load_si256(static_cast<const __m256i*>(hi)), 1);
}
inline __m512 ConcatPs(const float* lo, const float* hi) {
  return _mm512_castpd_ps(_mm512_insertf64x4(_mm512_castpd256_pd512(_mm256_castps_pd(_mm256_load_ps(lo))),
                                             _mm256_castps_pd(_mm256_load_ps(hi)), 1));
}

// Two 16-channel blocks (32 channels) of the 3x3 interior in 512-bit
// registers. The packed lane order carries over: per 128-bit lane,
// unpacklo/hi of a tap pair give channels 0-3 / 4-7 of that lane's eight,
// so the low half of each register is block `blk`'s 256-bit vector and the
// high half block blk + 1's.
void RunTwoBlocks3x3(const QDepthwiseJob& j, const uint8_t* const* tap, size_t first, size_t step, size_t c_total,
                     int c0, uint8_t* out_row) {
  const int blk = c0 / 16;
  const int16_t* wa = j.wpacked + static_cast<size_t>(blk) * 5 * 32;
  const int16_t* wb = wa + 5 * 32;
  __m512i w[10];
  for (int i = 0; i < 10; ++i) w[i] = Concat(wa + 16 * i, wb + 16 * i);
  const __m512i bias_a = Concat(j.vbias + blk * 16, j.vbias + blk * 16 + 16);
  const __m512i bias_b = Concat(j.vbias + blk * 16 + 8, j.vbias + blk * 16 + 24);
  const __m512 sa = ConcatPs(j.vscale + blk * 16, j.vscale + blk * 16 + 16);
  const __m512 sb = ConcatPs(j.vscale + blk * 16 + 8, j.vscale + blk * 16 + 24);
  const __m512 lo = _mm512_set1_ps(static_cast<float>(j.qmin - j.out_zero_point));
  const __m512 hi = _mm512_set1_ps(static_cast<float>(j.qmax - j.out_zero_point));
  const __m512i zp = _mm512_set1_epi32(j.out_zero_point);
  const __m256i xor_mask = _mm256_set1_epi8(static_cast<char>(j.xor_mask));
  const __mmask16 all = 0xFFFF;
  size_t offset = first + static_cast<size_t>(c0);
  uint8_t* out = out_row + static_cast<size_t>(j.interior_begin) * c_total + c0;
  for (int ox = j.interior_begin; ox < j.interior_end; ++ox, offset += step, out += c_total) {
    auto load = [&](int t) {
      const __m256i bytes = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(tap[t] + offset));
      return _mm512_cvtepu8_epi16(_mm256_xor_si256(bytes, xor_mask));
    };
    __m512i acc_a = bias_a, acc_b = bias_b;
#pragma GCC unroll 5
    for (int p = 0; p < 5; ++p) {
      const __m512i x0 = load(2 * p);
      const __m512i x1 = p < 4 ? load(2 * p + 1) : x0;  // the tenth tap's weights are zero
      acc_a = DotPairs(acc_a, _mm512_unpacklo_epi16(x0, x1), w[2 * p]);
      acc_b = DotPairs(acc_b, _mm512_unpackhi_epi16(x0, x1), w[2 * p + 1]);
    }
    __m512 fa = _mm512_mul_ps(_mm512_cvtepi32_ps(acc_a), sa);
    __m512 fb = _mm512_mul_ps(_mm512_cvtepi32_ps(acc_b), sb);
    fa = _mm512_mask_min_ps(fa, all, _mm512_mask_max_ps(fa, all, fa, lo), hi);
    fb = _mm512_mask_min_ps(fb, all, _mm512_mask_max_ps(fb, all, fb, lo), hi);
    const __m512i w16 = _mm512_packs_epi32(_mm512_add_epi32(_mm512_cvtps_epi32(fa), zp),
                                           _mm512_add_epi32(_mm512_cvtps_epi32(fb), zp));
    // Clamped to the output type already: truncating to bytes is exact.
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out), _mm512_cvtepi16_epi8(w16));
  }
}
#endif


void RunRowInterior3x3(const QDepthwiseJob& j, const uint8_t* image, uint8_t* out_row, int oy, BlockConstants k) {
  const size_t c_total = static_cast<size_t>(j.in_c);
  const uint8_t* tap[9];
  for (int ky = 0; ky < 3; ++ky) {
    const size_t iy = static_cast<size_t>(oy * j.stride_h - j.pad_top + ky * j.dilation_h);
    for (int kx = 0; kx < 3; ++kx) tap[ky * 3 + kx] = image + (iy * j.in_w + kx * j.dilation_w) * c_total;
  }
  const size_t step = static_cast<size_t>(j.stride_w) * c_total;
  const size_t first = static_cast<size_t>(j.interior_begin * j.stride_w - j.pad_left) * c_total;
  int c_begin = 0;
#if defined(__AVX512VNNI__)
  if (j.wquads != nullptr) {
    for (; c_begin + 64 <= j.quad_c; c_begin += 64) {
      if (j.qcoef != nullptr) {
        RunQuadBlock3x3<true>(j, tap, first, step, c_total, c_begin, out_row);
      } else {
        RunQuadBlock3x3<false>(j, tap, first, step, c_total, c_begin, out_row);
      }
    }
  }
#endif
#if defined(__AVX512BW__)
  for (; c_begin + 32 <= j.vec_c; c_begin += 32) RunTwoBlocks3x3(j, tap, first, step, c_total, c_begin, out_row);
#endif
  for (int c0 = c_begin; c0 < j.vec_c; c0 += 16) {
    const int blk = c0 / 16;
    const int16_t* wp = j.wpacked + static_cast<size_t>(blk) * 5 * 32;
    __m256i w[10];
    for (int i = 0; i < 10; ++i) w[i] = _mm256_load_si256(reinterpret_cast<const __m256i*>(wp + 16 * i));
    const __m256i bias_a = _mm256_load_si256(reinterpret_cast<const __m256i*>(j.vbias + blk * 16));
    const __m256i bias_b = _mm256_load_si256(reinterpret_cast<const __m256i*>(j.vbias + blk * 16 + 8));
    const __m256 sa = _mm256_load_ps(j.vscale + blk * 16);
    const __m256 sb = _mm256_load_ps(j.vscale + blk * 16 + 8);
    size_t offset = first + static_cast<size_t>(c0);
    uint8_t* out = out_row + static_cast<size_t>(j.interior_begin) * c_total + c0;
    for (int ox = j.interior_begin; ox < j.interior_end; ++ox, offset += step, out += c_total) {
      __m256i acc_a = bias_a, acc_b = bias_b;
      Accumulate3x3([&](int t) { return WidenTap(tap[t] + offset, k.xor_mask); }, w, &acc_a, &acc_b);
      StoreBlock(acc_a, acc_b, sa, sb, k, out);
    }
  }
  if (!j.block8) return;
  // The 8-channel block, two output pixels per step: pixel ox in the low
  // 128-bit lane, ox + 1 in the high one, the weights repeated in both.
  __m256i w8[10];
  for (int i = 0; i < 10; ++i) {
    w8[i] = _mm256_broadcastsi128_si256(_mm_load_si128(reinterpret_cast<const __m128i*>(j.w8 + 8 * i)));
  }
  const __m256i bias_lo = _mm256_broadcastsi128_si256(_mm_load_si128(reinterpret_cast<const __m128i*>(j.bias8)));
  const __m256i bias_hi =
      _mm256_broadcastsi128_si256(_mm_load_si128(reinterpret_cast<const __m128i*>(j.bias8 + 4)));
  const __m256 s_lo = _mm256_broadcast_ps(reinterpret_cast<const __m128*>(j.scale8));
  const __m256 s_hi = _mm256_broadcast_ps(reinterpret_cast<const __m128*>(j.scale8 + 4));
  uint8_t* out = out_row + static_cast<size_t>(j.interior_begin) * c_total + j.vec_c;
  size_t offset = first + static_cast<size_t>(j.vec_c);
  int ox = j.interior_begin;
  for (; ox + 2 <= j.interior_end; ox += 2, offset += 2 * step, out += 2 * c_total) {
    __m256i acc_lo = bias_lo, acc_hi = bias_hi;
    // Tap t of pixels ox and ox + 1, one per lane.
    Accumulate3x3(
        [&](int t) {
          const __m128i two =
              _mm_unpacklo_epi64(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(tap[t] + offset)),
                                 _mm_loadl_epi64(reinterpret_cast<const __m128i*>(tap[t] + offset + step)));
          return _mm256_cvtepu8_epi16(_mm_xor_si128(two, k.xor_mask));
        },
        w8, &acc_lo, &acc_hi);
    // Per lane: channels 0-3 then 4-7 as int16, then bytes.
    const __m256i w16 = RequantizeToInt16(acc_lo, acc_hi, s_lo, s_hi, k);
    const __m256i bytes = k.is_signed ? _mm256_packs_epi16(w16, w16) : _mm256_packus_epi16(w16, w16);
    _mm_storel_epi64(reinterpret_cast<__m128i*>(out), _mm256_castsi256_si128(bytes));
    _mm_storel_epi64(reinterpret_cast<__m128i*>(out + c_total), _mm256_extracti128_si256(bytes, 1));
  }
  if (ox < j.interior_end) {
    const uint8_t* row_taps[10];
    for (int t = 0; t < 9; ++t) row_taps[t] = tap[t] + offset;
    row_taps[9] = row_taps[8];  // weights of the tenth tap are zero
    RunBlock8(j, row_taps, 0, k, out);
  }
}

}  // namespace

void QDepthwiseRow(const QDepthwiseJob& j, int b, int oy, const uint8_t** taps) {
  const uint8_t* input = j.input;
  uint8_t* output = j.output;
  const BlockConstants k{_mm_set1_epi8(static_cast<char>(j.xor_mask)),
                         _mm256_set1_ps(static_cast<float>(j.qmin - j.out_zero_point)),
                         _mm256_set1_ps(static_cast<float>(j.qmax - j.out_zero_point)),
                         _mm256_set1_epi32(j.out_zero_point), j.is_signed};
  const int iy0 = oy * j.stride_h - j.pad_top;
  const bool rows_inside = iy0 >= 0 && iy0 + (j.filter_h - 1) * j.dilation_h < j.in_h;
  if (j.filter_h != 3 || j.filter_w != 3 || j.vec_end == 0 || !rows_inside || j.interior_begin >= j.interior_end) {
    for (int ox = 0; ox < j.out_w; ++ox) RunPixel(j, b, oy, ox, taps, &k);
    return;
  }
  for (int ox = 0; ox < j.interior_begin; ++ox) RunPixel(j, b, oy, ox, taps, &k);
  const uint8_t* image = input + static_cast<size_t>(b) * j.in_h * j.in_w * j.in_c;
  RunRowInterior3x3(j, image, output + (static_cast<size_t>(b) * j.out_h + oy) * j.out_w * j.out_c, oy, k);
  if (j.vec_end < j.out_c) {
    for (int ox = j.interior_begin; ox < j.interior_end; ++ox) RunPixel(j, b, oy, ox, taps, nullptr);
  }
  for (int ox = j.interior_end; ox < j.out_w; ++ox) RunPixel(j, b, oy, ox, taps, &k);
}


}  // namespace relite::cpu::RELITE_ISA_NS
