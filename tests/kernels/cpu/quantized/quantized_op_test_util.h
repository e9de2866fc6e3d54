// Small helpers for the quantized pooling / activation / resize op tests.
#pragma once

#include <cstdint>
#include <vector>

#include "relite/relite.h"

namespace relite::testing {

inline Quantization Quant(float scale, int64_t zero_point) {
  Quantization q;
  q.scale = {scale};
  q.zero_point = {zero_point};
  return q;
}

}  // namespace relite::testing
