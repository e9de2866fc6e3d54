#include "src/delegates/gpu/kernel_source.h"

#include <cmath>

#include <fmt/format.h>

namespace relite::gpu {
namespace {

// `x` wrapped in the fake quants, innermost first.
std::string WrapFakeQuants(std::string x, const std::vector<FakeQuant>& fqs) {
  for (const FakeQuant& q : fqs) {
    x = fmt::format("fake_quant({}, {}, {}, {}, {}, {})", x, KernelFloatLiteral(1.f / q.scale), KernelFloatLiteral(q.scale),
                    KernelFloatLiteral(q.zero_point), KernelFloatLiteral(q.qmin), KernelFloatLiteral(q.qmax));
  }
  return x;
}

// `x` clamped to [lo, hi] (either may be infinite: no bound).
std::string Clamp(const std::string& x, float lo, float hi) {
  const bool has_lo = !std::isinf(lo), has_hi = !std::isinf(hi);
  if (has_lo && has_hi) return fmt::format("clamp({}, {}, {})", x, KernelFloatLiteral(lo), KernelFloatLiteral(hi));
  if (has_lo) return fmt::format("fmax({}, {})", x, KernelFloatLiteral(lo));
  if (has_hi) return fmt::format("fmin({}, {})", x, KernelFloatLiteral(hi));
  return x;
}

}  // namespace

std::string LaunchDefines(const KernelLaunch& launch, Precision precision) {
  std::string defines = fmt::format("#define RELITE_FP16 {}\n", precision == Precision::kFp16 ? 1 : 0);
  defines += launch.defines;
  std::string act = Clamp("(v)", launch.act_min, launch.act_max);
  if (!launch.post_op.empty()) {
    defines += "#define POST_OP(x) (" + launch.post_op + ")\n";
    act = Clamp("POST_OP(" + act + ")", launch.post_act_min, launch.post_act_max);
  }
  defines += "#define ACT(v) " + WrapFakeQuants(act, launch.fake_quant) + "\n";
  // A folded MAX_POOL_2D (2x2, stride 2): element i of the pooled tensor
  // (slice s, row y, column x of an h/2 x w/2 plane) is the maximum of its
  // four cells in the h x w input.
  std::string residual_load = "LOAD4(residual, (i))";
  if (launch.residual_pool_in_h > 0) {
    const int h = launch.residual_pool_in_h, w = launch.residual_pool_in_w;
    const int oh = h / 2, ow = w / 2;
    const std::string at = fmt::format("(((i) / {}) * {} + (((i) % {}) / {}) * {} + ((i) % {}) * 2)", oh * ow, h * w, oh * ow,
                                       ow, 2 * w, ow);
    residual_load = fmt::format(
        "fmax(fmax(LOAD4(residual, {0}), LOAD4(residual, {0} + 1)), fmax(LOAD4(residual, {0} + {1}), LOAD4(residual, {0} + {2})))",
        at, w, w + 1);
  }
  // A folded channel PAD: reads past the residual tensor's elements are zeros.
  if (launch.residual_elements >= 0) {
    residual_load = fmt::format("((i) < {} ? {} : F4(0.f))", launch.residual_elements, residual_load);
  }
  if (!launch.residual) {
    defines += "#define EXTRA_ARGS\n#define ADD_RESIDUAL(v, i) (v)\n";
  } else if (launch.residual_add.enabled) {
    defines += "#define EXTRA_ARGS , GLOBAL const STORAGE* residual\n#define ADD_RESIDUAL(v, i) (" +
               IntegerAddCall(launch.residual_add, WrapFakeQuants("(v)", launch.pre_residual_fake_quant),
                              residual_load) +
               ")\n";
  } else {
    defines += "#define EXTRA_ARGS , GLOBAL const STORAGE* residual\n#define ADD_RESIDUAL(v, i) (" +
               WrapFakeQuants("(v)", launch.pre_residual_fake_quant) + " + " + residual_load + ")\n";
  }
  return defines;
}

}  // namespace relite::gpu
