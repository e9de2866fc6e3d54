// IEEE 754 binary16 <-> binary32 conversion on raw bits (float16 tensors are
// stored as uint16_t). Branch-free in the common cases so loops over arrays
// vectorise; subnormals, infinities and NaNs are handled exactly.
#pragma once

#include <cstdint>
#include <cstring>

namespace relite {

inline float BitsToFloat(uint32_t bits) {
  float f;
  std::memcpy(&f, &bits, sizeof(f));
  return f;
}

inline uint32_t FloatToBits(float f) {
  uint32_t bits;
  std::memcpy(&bits, &f, sizeof(bits));
  return bits;
}

// Exact: every half value is representable as a float.
inline float HalfToFloat(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  const uint32_t magnitude = h & 0x7fffu;
  const uint32_t exponent = magnitude >> 10;
  // Normal: rebias the exponent from 15 to 127.
  const uint32_t normal = (magnitude << 13) + (112u << 23);
  // Inf or NaN; the NaN payload is kept in the top mantissa bits.
  const uint32_t inf_nan = (magnitude << 13) | 0x7f800000u;
  // Zero or subnormal: mantissa * 2^-24, exact in float arithmetic.
  const uint32_t subnormal = FloatToBits(static_cast<float>(magnitude) * 5.9604644775390625e-8f);
  uint32_t bits = exponent == 0x1fu ? inf_nan : normal;
  bits = exponent == 0 ? subnormal : bits;
  return BitsToFloat(sign | bits);
}

// Round to nearest, ties to even; overflow gives infinity, NaN stays a
// (quiet) NaN, results below the half range become subnormals or zero.
inline uint16_t FloatToHalf(float f) {
  const uint32_t bits = FloatToBits(f);
  const uint32_t sign = (bits >> 16) & 0x8000u;
  const uint32_t abs_bits = bits & 0x7fffffffu;
  if (abs_bits >= 0x7f800000u) {
    // Inf stays inf; NaN keeps its top payload bits and is forced quiet.
    const uint32_t nan_bits = abs_bits > 0x7f800000u ? (0x200u | ((abs_bits >> 13) & 0x3ffu)) : 0u;
    return static_cast<uint16_t>(sign | 0x7c00u | nan_bits);
  }
  if (abs_bits >= 0x477ff000u) {
    // >= 65520 (half max + half an ulp) rounds to infinity.
    return static_cast<uint16_t>(sign | 0x7c00u);
  }
  if (abs_bits < 0x38800000u) {
    // Below the smallest normal half (2^-14): the float addition of 0.5
    // aligns the value so that the hardware rounds (ties to even) at the
    // half subnormal's last bit (2^-24).
    const float aligned = BitsToFloat(abs_bits) + 0.5f;
    return static_cast<uint16_t>(sign | (FloatToBits(aligned) - FloatToBits(0.5f)));
  }
  // Normal: rebias and round the 13 dropped mantissa bits to nearest even.
  const uint32_t odd = (abs_bits >> 13) & 1u;
  const uint32_t rounded = abs_bits + 0xfffu + odd;
  return static_cast<uint16_t>(sign | ((rounded - (112u << 23)) >> 13));
}

// HalfToFloat over an array, eight lanes at a time with GCC/Clang vector
// extensions (a scalar loop does not vectorise: the compiler moves the
// subnormal arithmetic under a branch).
inline void HalfToFloatArray(const uint16_t* in, float* out, int64_t n) {
  typedef uint16_t U16x8 __attribute__((vector_size(16)));
  typedef uint32_t U32x8 __attribute__((vector_size(32)));
  typedef int32_t I32x8 __attribute__((vector_size(32)));
  typedef float F32x8 __attribute__((vector_size(32)));
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    U16x8 h;
    std::memcpy(&h, in + i, sizeof(h));
    const U32x8 wide = __builtin_convertvector(h, U32x8);
    const U32x8 sign = (wide & 0x8000u) << 16;
    const U32x8 magnitude = wide & 0x7fffu;
    const U32x8 exponent = magnitude >> 10;
    const U32x8 normal = (magnitude << 13) + (112u << 23);
    const U32x8 inf_nan = (magnitude << 13) | 0x7f800000u;
    const F32x8 subnormal =
        __builtin_convertvector(reinterpret_cast<I32x8>(magnitude), F32x8) * 5.9604644775390625e-8f;
    U32x8 bits = exponent == 0x1fu ? inf_nan : normal;
    bits = exponent == 0u ? reinterpret_cast<U32x8>(subnormal) : bits;
    const U32x8 result = sign | bits;
    std::memcpy(out + i, &result, sizeof(result));
  }
  for (; i < n; ++i) out[i] = HalfToFloat(in[i]);
}

}  // namespace relite
