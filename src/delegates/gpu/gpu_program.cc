#include "src/delegates/gpu/gpu_program.h"

#include <cmath>

#include <fmt/format.h>

namespace relite::gpu {

std::string KernelFloatLiteral(float v) {
  if (std::isinf(v)) return v > 0 ? "INFINITY" : "(-INFINITY)";
  std::string s = fmt::format("{:.9g}", v);  // round-trips a float exactly
  // "20f" is not a float literal in OpenCL C or CUDA C; "20.0f" is.
  if (s.find_first_of(".en") == std::string::npos) s += ".0";
  return s + "f";
}

std::string IntegerAddCall(const IntegerAdd& p, const std::string& a, const std::string& b) {
  return fmt::format("qadd({}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {})", a, b, KernelFloatLiteral(p.a_inv_scale),
                     KernelFloatLiteral(p.b_inv_scale), p.a_zero_point, p.b_zero_point, p.a_multiplier, p.b_multiplier, p.bias,
                     p.shift, p.out_zero_point, p.qmin, p.qmax, KernelFloatLiteral(p.out_scale));
}

}  // namespace relite::gpu
