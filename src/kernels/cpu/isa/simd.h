// Float vectors for the kernel variants in src/kernels/cpu/isa/multi/: one
// source, compiled once per ISA with that ISA's flags and RELITE_ISA_NS set
// to its namespace. VecF is the ISA's widest float vector (16 lanes with
// AVX-512, 8 with AVX2, 4 on the 128-bit baselines: SSE2 and NEON), V8 an
// 8-lane vector on every ISA (a register pair on the baselines).
//
// Everything here is inline and inside RELITE_ISA_NS: an inline function
// compiled with AVX-512 flags must never be the copy the linker keeps for
// baseline code (tests/cpu/isa_symbols_check.py checks the objects).
#pragma once

#ifndef RELITE_ISA_NS
#error "simd.h is for the per-ISA kernel sources (src/kernels/cpu/isa/multi), built with RELITE_ISA_NS set"
#endif

#include <cstring>

#if defined(__AVX2__) || defined(__AVX512F__)
#include <immintrin.h>
#endif

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpsabi"

namespace relite::cpu::RELITE_ISA_NS {

typedef float V4 __attribute__((vector_size(16)));
typedef float V8 __attribute__((vector_size(32)));
#if defined(__AVX512F__)
typedef float V16 __attribute__((vector_size(64)));
using VecF = V16;
inline constexpr int kLanes = 16;
#elif defined(__AVX2__)
using VecF = V8;
inline constexpr int kLanes = 8;
#else
using VecF = V4;
inline constexpr int kLanes = 4;
#endif
// Vector registers: 32 with AVX-512 and on AArch64, 16 otherwise.
#if defined(__AVX512F__) || defined(__aarch64__)
inline constexpr int kVectorRegisters = 32;
#else
inline constexpr int kVectorRegisters = 16;
#endif

template <typename V>
inline V Load(const float* p) {
  V v;
  std::memcpy(&v, p, sizeof(v));
  return v;
}
template <typename V>
inline void Store(float* p, V v) {
  std::memcpy(p, &v, sizeof(v));
}
template <typename V>
inline V Splat(float x) {
  return V{} + x;
}
template <typename V>
inline V Clamp(V x, V lo, V hi) {
#if defined(__AVX512F__)
  if constexpr (sizeof(V) == 64) {
    // The masked forms: GCC 12 warns about the unmasked ones' undefined
    // pass-through operand.
    const __m512 xv = reinterpret_cast<__m512>(x);
    const __m512 m = _mm512_mask_max_ps(xv, static_cast<__mmask16>(0xFFFF), xv, reinterpret_cast<__m512>(lo));
    return reinterpret_cast<V>(_mm512_mask_min_ps(m, static_cast<__mmask16>(0xFFFF), m, reinterpret_cast<__m512>(hi)));
  }
#endif
#if defined(__AVX2__)
  if constexpr (sizeof(V) == 32) {
    return reinterpret_cast<V>(_mm256_min_ps(_mm256_max_ps(reinterpret_cast<__m256>(x), reinterpret_cast<__m256>(lo)),
                                             reinterpret_cast<__m256>(hi)));
  }
#endif
  x = x < lo ? lo : x;
  return x > hi ? hi : x;
}

// The first n lanes (0 < n < lanes of V) at p; the rest read as 0 and
// nothing past p[n - 1] is touched.
template <typename V>
inline V LoadFirst(const float* p, int n) {
#if defined(__AVX512F__)
  if constexpr (sizeof(V) == 64) {
    return reinterpret_cast<V>(_mm512_maskz_loadu_ps(static_cast<__mmask16>((1u << n) - 1), p));
  }
  if constexpr (sizeof(V) == 32) {
    return reinterpret_cast<V>(_mm256_maskz_loadu_ps(static_cast<__mmask8>((1u << n) - 1), p));
  }
#endif
#if defined(__AVX2__)
  if constexpr (sizeof(V) == 32) {
    alignas(32) static const int kMask[16] = {-1, -1, -1, -1, -1, -1, -1, -1, 0, 0, 0, 0, 0, 0, 0, 0};
    return reinterpret_cast<V>(
        _mm256_maskload_ps(p, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(kMask + 8 - n))));
  }
#endif
  float lanes[sizeof(V) / sizeof(float)] = {};
  for (int i = 0; i < n; ++i) lanes[i] = p[i];
  return Load<V>(lanes);
}
// Stores the first n lanes (0 < n < lanes of V). AVX2 avoids vmaskmovps
// (AMD cores run its store form as dozens of micro-ops).
template <typename V>
inline void StoreFirst(float* p, V v, int n) {
#if defined(__AVX512F__)
  if constexpr (sizeof(V) == 64) {
    _mm512_mask_storeu_ps(p, static_cast<__mmask16>((1u << n) - 1), reinterpret_cast<__m512>(v));
    return;
  }
  if constexpr (sizeof(V) == 32) {
    _mm256_mask_storeu_ps(p, static_cast<__mmask8>((1u << n) - 1), reinterpret_cast<__m256>(v));
    return;
  }
#endif
  float lanes[sizeof(V) / sizeof(float)];
  Store<V>(lanes, v);
  int i = 0;
  if (n >= 4) {
    std::memcpy(p, lanes, 4 * sizeof(float));
    i = 4;
  }
  for (; i < n; ++i) p[i] = lanes[i];
}

// Whether LoadFirst/StoreFirst are single instructions (a vector tail is
// then cheaper than a scalar one).
inline constexpr bool kMaskedTails =
#if defined(__AVX2__) || defined(__AVX512F__)
    true;
#else
    false;
#endif

inline float MinF(float a, float b) { return b < a ? b : a; }
inline float MaxF(float a, float b) { return a < b ? b : a; }
inline float ClampF(float x, float lo, float hi) { return MinF(MaxF(x, lo), hi); }

}  // namespace relite::cpu::RELITE_ISA_NS

#pragma GCC diagnostic pop
