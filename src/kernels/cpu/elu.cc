// ELU: x for x >= 0, e^x - 1 (expm1, exact near 0) below; float32. int8 is
// TFLite's lookup table, in quantized/elu.cc.
#include <cmath>
#include <memory>

#include "src/kernels/cpu/internal/typed_elementwise.h"
#include "src/kernels/cpu/kernels.h"

namespace relite::cpu {
namespace {

struct EluOp {
  float operator()(float x) const { return x < 0.0f ? std::expm1(x) : x; }
};

}  // namespace

StatusOr<std::unique_ptr<Kernel>> CreateElu(const Node&) {
  return MakeTypedUnaryKernel(EluOp{}, {DataType::kFloat32}, kTranscendentalMinChunk);
}

}  // namespace relite::cpu
