// Quantized REDUCE_MIN (uint8, int8, int16): the min of the raw values,
// input and output quantized alike (internal/quantized_reduce.h).
#include <memory>

#include "src/kernels/cpu/internal/quantized_reduce.h"
#include "src/kernels/cpu/kernels.h"

namespace relite::cpu {

StatusOr<std::unique_ptr<Kernel>> CreateQuantizedReduceMin(const Node& node) {
  return std::unique_ptr<Kernel>(
      std::make_unique<QuantizedMinMaxReduceKernel<reduce_internal::MinReducer>>(node, "REDUCE_MIN"));
}

}  // namespace relite::cpu
