// SQUARED_DIFFERENCE: (a - b)^2 with broadcasting, float32 and int32 (the
// int32 arithmetic wraps instead of overflowing). TFLite's int8 version is
// quantized, not supported yet.
#include <cstdint>
#include <memory>

#include "src/kernels/cpu/internal/typed_elementwise.h"
#include "src/kernels/cpu/kernels.h"

namespace relite::cpu {
namespace {

struct SquaredDifferenceOp {
  float operator()(float a, float b) const {
    const float d = a - b;
    return d * d;
  }
  int32_t operator()(int32_t a, int32_t b) const {
    const int32_t d = WrappingSub(a, b);
    return WrappingMul(d, d);
  }
};

}  // namespace

StatusOr<std::unique_ptr<Kernel>> CreateSquaredDifference(const Node&) {
  return MakeTypedBinaryKernel(SquaredDifferenceOp{}, {DataType::kFloat32, DataType::kInt32});
}

}  // namespace relite::cpu
