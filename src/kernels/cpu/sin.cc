// SIN: sine of float32 values (std::sin, as TFLite).
#include <cmath>
#include <memory>

#include "src/kernels/cpu/internal/typed_elementwise.h"
#include "src/kernels/cpu/kernels.h"

namespace relite::cpu {
namespace {

struct SinOp {
  float operator()(float x) const { return std::sin(x); }
};

}  // namespace

StatusOr<std::unique_ptr<Kernel>> CreateSin(const Node&) {
  return MakeTypedUnaryKernel(SinOp{}, {DataType::kFloat32}, kTranscendentalMinChunk);
}

}  // namespace relite::cpu
