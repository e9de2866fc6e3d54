// GELU: x * P(X <= x) for a standard normal X, float32. Options
// `approximate` (default false): false is the exact form
// 0.5 x erfc(-x / sqrt 2), true the tanh form
// 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))), each computed in float
// as TFLite's reference kernel does. int8/uint8 is TFLite's lookup table of
// the same functions, in quantized/gelu.cc.
#include <cmath>
#include <memory>

#include "src/core/ops/options.h"
#include "src/kernels/cpu/internal/typed_elementwise.h"
#include "src/kernels/cpu/kernels.h"

namespace relite::cpu {
namespace {

struct GeluExactOp {
  float operator()(float x) const {
    // erfc keeps the tail accurate for large negative x, where 1 + erf(x)
    // would cancel to 0.
    constexpr float kMinusSqrtHalf = -0.70710678118654752440f;
    return 0.5f * x * std::erfc(x * kMinusSqrtHalf);
  }
};

struct GeluTanhOp {
  float operator()(float x) const {
    constexpr float kSqrt2OverPi = 0.79788456080286535588f;
    return 0.5f * x * (1.0f + std::tanh(kSqrt2OverPi * (x + 0.044715f * x * x * x)));
  }
};

}  // namespace

StatusOr<std::unique_ptr<Kernel>> CreateGelu(const Node& node) {
  const tflite::GeluOptions* options = GetOptions<tflite::GeluOptions>(node);
  if (options != nullptr && options->approximate()) {
    return MakeTypedUnaryKernel(GeluTanhOp{}, {DataType::kFloat32}, kTranscendentalMinChunk);
  }
  return MakeTypedUnaryKernel(GeluExactOp{}, {DataType::kFloat32}, kTranscendentalMinChunk);
}

}  // namespace relite::cpu
