// SIGN: -1, 0 or 1 by the sign of x, for float32 and int32. As in TFLite a
// float NaN passes through unchanged and both zeros give +0.
#include <cmath>
#include <cstdint>
#include <memory>

#include "src/kernels/cpu/internal/typed_elementwise.h"
#include "src/kernels/cpu/kernels.h"

namespace relite::cpu {
namespace {

struct SignOp {
  float operator()(float x) const {
    if (std::isnan(x)) return x;
    return x > 0.0f ? 1.0f : (x < 0.0f ? -1.0f : 0.0f);
  }
  int32_t operator()(int32_t x) const { return static_cast<int32_t>((x > 0) - (x < 0)); }
};

}  // namespace

StatusOr<std::unique_ptr<Kernel>> CreateSign(const Node&) {
  return MakeTypedUnaryKernel(SignOp{}, {DataType::kFloat32, DataType::kInt32});
}

}  // namespace relite::cpu
