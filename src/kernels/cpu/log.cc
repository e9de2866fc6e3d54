// LOG: natural logarithm, float32 (log(0) = -inf, log(x < 0) = NaN). TFLite's
// int8/int16 version is a quantized lookup table, not supported yet.
#include <cmath>
#include <memory>

#include "src/kernels/cpu/internal/typed_elementwise.h"
#include "src/kernels/cpu/kernels.h"

namespace relite::cpu {
namespace {

struct LogOp {
  float operator()(float x) const { return std::log(x); }
};

}  // namespace

StatusOr<std::unique_ptr<Kernel>> CreateLog(const Node&) {
  return MakeTypedUnaryKernel(LogOp{}, {DataType::kFloat32}, kTranscendentalMinChunk);
}

}  // namespace relite::cpu
