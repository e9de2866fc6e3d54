// SQUARE: x * x, float32 only (as in TFLite).
#include <memory>

#include "src/kernels/cpu/internal/typed_elementwise.h"
#include "src/kernels/cpu/kernels.h"

namespace relite::cpu {
namespace {

struct SquareOp {
  float operator()(float x) const { return x * x; }
};

}  // namespace

StatusOr<std::unique_ptr<Kernel>> CreateSquare(const Node&) {
  return MakeTypedUnaryKernel(SquareOp{}, {DataType::kFloat32});
}

}  // namespace relite::cpu
