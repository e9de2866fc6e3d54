// x rounded to the nearest integer, ties to even (as cvtps2dq and nearbyint
// round), for |x| < 2^22: adding 1.5 * 2^23 leaves the integer in the low
// mantissa bits. Without SSE4.1 nearbyint is a library call. The add must
// not fuse with a multiply before it: the 8-bit sources build without FMA
// contraction.
//
// Shared by baseline code (quantization.h) and the per-ISA sources, so it
// sits in an inline namespace per build (as vector_math.h).
#pragma once

#include <cstdint>
#include <cstring>

#define RELITE_ROUND_PASTE2(a, b) a##b
#define RELITE_ROUND_PASTE(a, b) RELITE_ROUND_PASTE2(a, b)
#ifdef RELITE_ISA_NS
#define RELITE_ROUND_NS RELITE_ROUND_PASTE(round_, RELITE_ISA_NS)
#else
#define RELITE_ROUND_NS round_isa_base
#endif

namespace relite::cpu {
inline namespace RELITE_ROUND_NS {

inline int32_t RoundHalfEvenSmall(float x) {
  const float shifted = x + 12582912.0f;
  int32_t bits;
  std::memcpy(&bits, &shifted, sizeof(bits));
  return bits - 0x4B400000;
}

}  // namespace RELITE_ROUND_NS
}  // namespace relite::cpu
