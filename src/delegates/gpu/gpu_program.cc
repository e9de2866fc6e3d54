#include "src/delegates/gpu/gpu_program.h"

#include <fmt/format.h>

namespace relite::gpu {

std::string IntegerAddCall(const IntegerAdd& p, const std::string& a, const std::string& b) {
  // %.9g round-trips a float exactly.
  return fmt::format("qadd({}, {}, {:.9g}f, {:.9g}f, {}, {}, {}, {}, {}, {}, {}, {}, {}, {:.9g}f)", a, b, p.a_inv_scale,
                     p.b_inv_scale, p.a_zero_point, p.b_zero_point, p.a_multiplier, p.b_multiplier, p.bias, p.shift,
                     p.out_zero_point, p.qmin, p.qmax, p.out_scale);
}

}  // namespace relite::gpu
