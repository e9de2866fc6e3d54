// FLOOR: round float32 values toward -inf.
#include <cmath>
#include <memory>

#include "src/kernels/cpu/internal/typed_elementwise.h"
#include "src/kernels/cpu/kernels.h"

namespace relite::cpu {
namespace {

struct FloorOp {
  float operator()(float x) const { return std::floor(x); }
};

}  // namespace

StatusOr<std::unique_ptr<Kernel>> CreateFloor(const Node&) {
  return MakeTypedUnaryKernel(FloorOp{}, {DataType::kFloat32});
}

}  // namespace relite::cpu
