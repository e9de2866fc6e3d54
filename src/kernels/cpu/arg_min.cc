// ARG_MIN: index of the first minimum along one axis (internal/arg_reduce.h).
#include <memory>

#include "src/core/ops/options.h"
#include "src/kernels/cpu/internal/arg_reduce.h"
#include "src/kernels/cpu/kernels.h"

namespace relite::cpu {

StatusOr<std::unique_ptr<Kernel>> CreateArgMin(const Node& node) {
  const auto* o = GetOptions<tflite::ArgMinOptions>(node);
  return CreateArgExtremeKernel<true>(node, o ? static_cast<int32_t>(o->output_type()) : 0);
}

}  // namespace relite::cpu
