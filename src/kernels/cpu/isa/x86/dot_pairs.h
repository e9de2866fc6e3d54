// acc + the int32 sums of adjacent int16 products (vpmaddwd + vpaddd), one
// vpdpwssd where the ISA has VNNI: the step of the 8-bit GEMM and depthwise.
// Exact in both forms (no saturation), so the variants agree bit for bit.
#pragma once

#include <immintrin.h>

#ifndef RELITE_ISA_NS
#error "dot_pairs.h is for the per-ISA kernel sources, built with RELITE_ISA_NS set"
#endif

namespace relite::cpu::RELITE_ISA_NS {

#if defined(__AVX512BW__)
inline __m512i DotPairs(__m512i acc, __m512i a, __m512i w) {
#if defined(__AVX512VNNI__)
  return _mm512_dpwssd_epi32(acc, a, w);
#else
  return _mm512_add_epi32(acc, _mm512_madd_epi16(a, w));
#endif
}
#endif

#if defined(__AVX512VNNI__)
// acc += the sums of 4 products of unsigned bytes of `a` and signed bytes of
// `w`, per int32 lane (vpdpbusd). In asm because GCC 12 does not keep a
// loop-carried accumulator of _mm512_dpbusd_epi32 in place: it copies it
// into a fresh register and back around every instruction.
inline __m512i DotQuads(__m512i acc, __m512i a, __m512i w) {
  asm("vpdpbusd %2, %1, %0" : "+v"(acc) : "v"(a), "v"(w));
  return acc;
}
#endif

inline __m256i DotPairs(__m256i acc, __m256i a, __m256i w) {
#if defined(__AVX512VNNI__)
  return _mm256_dpwssd_epi32(acc, a, w);
#else
  return _mm256_add_epi32(acc, _mm256_madd_epi16(a, w));
#endif
}

}  // namespace relite::cpu::RELITE_ISA_NS
