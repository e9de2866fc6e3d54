// CEIL: round float32 values toward +inf.
#include <cmath>
#include <memory>

#include "src/kernels/cpu/internal/typed_elementwise.h"
#include "src/kernels/cpu/kernels.h"

namespace relite::cpu {
namespace {

struct CeilOp {
  float operator()(float x) const { return std::ceil(x); }
};

}  // namespace

StatusOr<std::unique_ptr<Kernel>> CreateCeil(const Node&) {
  return MakeTypedUnaryKernel(CeilOp{}, {DataType::kFloat32});
}

}  // namespace relite::cpu
