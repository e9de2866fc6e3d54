// ABS: |x| for float32 and int32; INT32_MIN maps to itself (two's complement
// wrap, as TFLite's std::abs gives in practice) instead of overflowing.
#include <cmath>
#include <cstdint>
#include <memory>

#include "src/kernels/cpu/internal/typed_elementwise.h"
#include "src/kernels/cpu/kernels.h"

namespace relite::cpu {
namespace {

struct AbsOp {
  float operator()(float x) const { return std::fabs(x); }
  int32_t operator()(int32_t x) const { return x < 0 ? WrappingSub(int32_t{0}, x) : x; }
};

}  // namespace

StatusOr<std::unique_ptr<Kernel>> CreateAbs(const Node&) {
  return MakeTypedUnaryKernel(AbsOp{}, {DataType::kFloat32, DataType::kInt32});
}

}  // namespace relite::cpu
