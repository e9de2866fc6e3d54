// COS: cosine of float32 values (std::cos, as TFLite).
#include <cmath>
#include <memory>

#include "src/kernels/cpu/internal/typed_elementwise.h"
#include "src/kernels/cpu/kernels.h"

namespace relite::cpu {
namespace {

struct CosOp {
  float operator()(float x) const { return std::cos(x); }
};

}  // namespace

StatusOr<std::unique_ptr<Kernel>> CreateCos(const Node&) {
  return MakeTypedUnaryKernel(CosOp{}, {DataType::kFloat32}, kTranscendentalMinChunk);
}

}  // namespace relite::cpu
