// ROUND: float32 to the nearest integer, ties to even, computed like TFLite's
// reference kernel from floor(x): a result of zero is +0 unless x is -0
// (round(-0.3) = +0, where rint would give -0); NaN and inf pass through.
#include <cmath>
#include <memory>

#include "src/kernels/cpu/internal/typed_elementwise.h"
#include "src/kernels/cpu/kernels.h"

namespace relite::cpu {
namespace {

struct RoundOp {
  float operator()(float x) const {
    const float down = std::floor(x);
    const float frac = x - down;
    // fmod instead of an int cast: `down` may be beyond the int range.
    if (frac < 0.5f || (frac == 0.5f && std::fmod(down, 2.0f) == 0.0f)) return down;
    return down + 1.0f;
  }
};

}  // namespace

StatusOr<std::unique_ptr<Kernel>> CreateRound(const Node&) {
  return MakeTypedUnaryKernel(RoundOp{}, {DataType::kFloat32});
}

}  // namespace relite::cpu
