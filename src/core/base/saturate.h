// Float to integer conversions that a model cannot make undefined: a value a
// model controls (a resize coordinate over a huge declared dimension, a
// decoder offset, a clamp bound divided by a tiny scale) may be NaN or far
// outside int32, and a plain static_cast is then undefined behaviour.
#pragma once

#include <cstdint>

namespace relite {

// Truncates toward zero like static_cast; saturates at the int32 range; NaN
// becomes 0. Identical to static_cast for every value inside the range.
inline int32_t SaturateToInt32(double v) {
  if (!(v == v)) return 0;
  if (v >= 2147483647.0) return INT32_MAX;
  if (v <= -2147483648.0) return INT32_MIN;
  return static_cast<int32_t>(v);
}

}  // namespace relite
