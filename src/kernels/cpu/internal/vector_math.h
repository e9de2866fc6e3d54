// Float math on eight lanes at a time, written with GCC/Clang vector
// extensions: with -march=x86-64-v3 every function below compiles to
// AVX2/FMA code, elsewhere to what the target has. (Plain scalar versions do
// not auto-vectorise: clamps become branches, and FP code under a branch is
// not if-converted with -ftrapping-math.)
//
// Accuracy over the whole float range (exhaustively sampled against double
// precision): ExpF <= 1 ulp, TanhF <= 1.5 ulp, LogisticF <= 2.5 ulp. NaN
// propagates, overflow gives inf, deep underflow gives 0, subnormal results
// are rounded once.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>

#if defined(__AVX__)
#include <immintrin.h>
#endif

// Passing 32-byte vectors by value warns (-Wpsabi) when AVX is off; these
// functions are inline, so no ABI boundary is crossed.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpsabi"

// Per-ISA builds (src/kernels/cpu/isa/multi) include this header too: the
// inline namespace keeps their copies apart from the baseline's.
#define RELITE_VMATH_PASTE2(a, b) a##b
#define RELITE_VMATH_PASTE(a, b) RELITE_VMATH_PASTE2(a, b)
#ifdef RELITE_ISA_NS
#define RELITE_VMATH_NS RELITE_VMATH_PASTE(vmath_, RELITE_ISA_NS)
#else
#define RELITE_VMATH_NS vmath_isa_base
#endif

namespace relite::cpu {
inline namespace RELITE_VMATH_NS {
namespace vmath {

typedef float F32x8 __attribute__((vector_size(32)));
typedef int32_t I32x8 __attribute__((vector_size(32)));
typedef uint32_t U32x8 __attribute__((vector_size(32)));

inline F32x8 Splat(float x) { return F32x8{x, x, x, x, x, x, x, x}; }

inline F32x8 Load(const float* p) {
  F32x8 v;
  std::memcpy(&v, p, sizeof(v));
  return v;
}
inline void Store(float* p, F32x8 v) { std::memcpy(p, &v, sizeof(v)); }

// e^x. Range reduction x = n*ln2 + r with |r| <= ln2/2 (ln2 split in two
// parts so that n*ln2_hi is exact), e^r = 1 + r + r^2 * P(r) with P a degree-5
// Chebyshev fit of (e^r - 1 - r) / r^2, and 2^n applied as 2^n1 * 2^n2 so
// that results in the subnormal range and overflow round once.
inline F32x8 Exp(F32x8 x) {
  // Beyond these bounds the result is 0 or inf anyway; the clamp keeps n
  // small. Comparisons with NaN are false, so NaN passes through.
  x = x < -110.0f ? Splat(-110.0f) : x;
  x = x > 100.0f ? Splat(100.0f) : x;
  constexpr float kLog2e = 1.44269504088896341f;
  constexpr float kLn2Hi = 0.693145751953125f;        // 16 significant bits
  constexpr float kLn2Lo = 1.42860682030941723e-06f;  // ln2 - kLn2Hi
  // Adding 1.5 * 2^23 rounds to an integer, which then sits in the low
  // mantissa bits of `shifted`.
  constexpr float kRoundMagic = 12582912.0f;
  constexpr uint32_t kRoundMagicBits = 0x4b400000u;
  const F32x8 shifted = x * kLog2e + kRoundMagic;
  const F32x8 n = shifted - kRoundMagic;
  const I32x8 ni = reinterpret_cast<I32x8>(reinterpret_cast<U32x8>(shifted) - kRoundMagicBits);
  F32x8 r = x - n * kLn2Hi;
  r = r - n * kLn2Lo;
  F32x8 p = Splat(1.98909808697503e-4f);
  p = p * r + 1.39336410319867e-3f;
  p = p * r + 8.33331093444887e-3f;
  p = p * r + 4.16664650060401e-2f;
  p = p * r + 1.66666666816143e-1f;
  p = p * r + 5.00000001345773e-1f;
  const F32x8 er = 1.0f + (r + r * r * p);
  const I32x8 n1 = ni >> 1;
  const I32x8 n2 = ni - n1;
  const F32x8 scale1 = reinterpret_cast<F32x8>((reinterpret_cast<U32x8>(n1) + 127u) << 23);
  const F32x8 scale2 = reinterpret_cast<F32x8>((reinterpret_cast<U32x8>(n2) + 127u) << 23);
  return er * scale1 * scale2;
}

inline F32x8 Abs(F32x8 x) { return reinterpret_cast<F32x8>(reinterpret_cast<U32x8>(x) & 0x7fffffffu); }

// 1 / (1 + e^-x), computed from e = e^-|x| <= 1 so nothing overflows:
// x >= 0: 1 / (1 + e); x < 0: e / (1 + e).
inline F32x8 Logistic(F32x8 x) {
  const F32x8 e = Exp(-Abs(x));
  const F32x8 numerator = x >= 0.0f ? Splat(1.0f) : e;
  return numerator / (1.0f + e);
}

// tanh(x): an odd polynomial for |x| < 0.625 (where 1 - e^-2|x| would
// cancel; Chebyshev fit of (tanh(x) - x) / x^3 in x^2) and
// 1 - 2 / (e^2|x| + 1) elsewhere, with the sign of x put back at the end.
inline F32x8 Tanh(F32x8 x) {
  const F32x8 ax = Abs(x);
  const F32x8 x2 = x * x;
  F32x8 q = Splat(2.292744816178142e-3f);
  q = q * x2 - 8.343945515839153e-3f;
  q = q * x2 + 2.176891865102821e-2f;
  q = q * x2 - 5.3959259577204544e-2f;
  q = q * x2 + 1.333330355691574e-1f;
  q = q * x2 - 3.333333317214036e-1f;
  const F32x8 small = ax + ax * x2 * q;
  const F32x8 large = 1.0f - 2.0f / (Exp(2.0f * ax) + 1.0f);
  const F32x8 magnitude = ax < 0.625f ? small : large;
  const U32x8 sign = reinterpret_cast<U32x8>(x) & 0x80000000u;
  return reinterpret_cast<F32x8>(reinterpret_cast<U32x8>(magnitude) | sign);
}

inline F32x8 Sqrt(F32x8 x) {
#if defined(__AVX__)
  return reinterpret_cast<F32x8>(_mm256_sqrt_ps(reinterpret_cast<__m256>(x)));
#else
  for (int i = 0; i < 8; ++i) x[i] = std::sqrt(x[i]);
  return x;
#endif
}

inline F32x8 Rsqrt(F32x8 x) { return 1.0f / Sqrt(x); }

// x * relu6(x + 3) / 6, the factor formed first so that huge x do not
// overflow. (As a scalar lambda GCC turns the clamp into branches.)
inline F32x8 HardSwish(F32x8 x) {
  F32x8 t = x + 3.0f;
  t = t < 0.0f ? Splat(0.0f) : t;
  t = t > 6.0f ? Splat(6.0f) : t;
  return x * (t * (1.0f / 6.0f));
}

// out[i] = F(in[i]) for n elements; the tail runs on a zero-padded vector.
template <F32x8 (*F)(F32x8)>
inline void Apply(const float* in, float* out, int64_t n) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) Store(out + i, F(Load(in + i)));
  if (i < n) {
    const size_t tail = static_cast<size_t>(n - i) * sizeof(float);
    F32x8 v = {};
    std::memcpy(&v, in + i, tail);
    v = F(v);
    std::memcpy(out + i, &v, tail);
  }
}

}  // namespace vmath

// Scalar entry points (lane 0 of the vector code, so results are identical).
inline float ExpF(float x) { return vmath::Exp(vmath::Splat(x))[0]; }
inline float LogisticF(float x) { return vmath::Logistic(vmath::Splat(x))[0]; }
inline float TanhF(float x) { return vmath::Tanh(vmath::Splat(x))[0]; }

}  // namespace RELITE_VMATH_NS
}  // namespace relite::cpu

#pragma GCC diagnostic pop
