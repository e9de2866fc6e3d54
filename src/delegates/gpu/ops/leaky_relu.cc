// LEAKY_RELU: x for x >= 0, alpha * x below.
#include "src/delegates/gpu/ops/emitters.h"
#include "src/delegates/gpu/ops/internal/elementwise.h"
#include "src/core/ops/options.h"

namespace relite::gpu {

Status EmitLeakyRelu(OpBuilder& b) {
  float alpha = 0.f;  // the schema's default
  if (const auto* options = GetOptions<tflite::LeakyReluOptions>(b.node())) alpha = options->alpha();
  return EmitUnary(b, "fmax(x, 0.0f) + p * fmin(x, 0.0f)", alpha);
}

}  // namespace relite::gpu
