// Eight-lane float vectors (one AVX register) as GCC vector extensions, so
// the conv-group kernels are written once: with -march=x86-64-v3 they become
// AVX2/FMA code, elsewhere the compiler splits them into what the target has.
#pragma once

#include <cstring>

#if defined(__AVX__)
#include <immintrin.h>
#endif

namespace relite::cpu {

typedef float v8f __attribute__((vector_size(32)));

// Unaligned loads and stores; memcpy keeps them free of aliasing questions
// and compiles to one vmovups.
inline v8f Load8(const float* p) {
  v8f v;
  std::memcpy(&v, p, sizeof(v));
  return v;
}
inline void Store8(float* p, v8f v) { std::memcpy(p, &v, sizeof(v)); }

inline v8f Splat8(float x) { return v8f{x, x, x, x, x, x, x, x}; }

// The first n lanes (0 < n < 8) of a vector at the end of a run: nothing
// past the run's end is read (masked lanes load as 0) or written.
#if defined(__AVX2__)
inline __m256i FirstLanesMask(int n) {
  alignas(32) static const int kMask[16] = {-1, -1, -1, -1, -1, -1, -1, -1, 0, 0, 0, 0, 0, 0, 0, 0};
  return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(kMask + 8 - n));
}
inline v8f LoadFirst(const float* p, __m256i mask) { return reinterpret_cast<v8f>(_mm256_maskload_ps(p, mask)); }
#endif
// Stores the first n lanes (0 < n < 8). Not vmaskmovps: AMD cores run its
// store form as dozens of micro-ops, slower than this.
inline void StoreFirst(float* p, v8f v, int n) {
  alignas(32) float lanes[8];
  Store8(lanes, v);
  int i = 0;
  if (n >= 4) {
    std::memcpy(p, lanes, 4 * sizeof(float));
    i = 4;
  }
  for (; i < n; ++i) p[i] = lanes[i];
}

// min(max(x, lo), hi), lane by lane.
inline v8f Clamp8(v8f x, v8f lo, v8f hi) {
#if defined(__AVX__)
  return reinterpret_cast<v8f>(_mm256_min_ps(_mm256_max_ps(reinterpret_cast<__m256>(x), reinterpret_cast<__m256>(lo)),
                                             reinterpret_cast<__m256>(hi)));
#else
  x = x < lo ? lo : x;
  return x > hi ? hi : x;
#endif
}

}  // namespace relite::cpu
