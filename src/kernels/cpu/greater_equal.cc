// GREATER_EQUAL: a >= b elementwise with broadcasting, a bool output. Inputs
// float32, int32, int64 and int16 (plain integers, as in TFLite); a NaN
// operand gives false.
// int8/uint8 (rescaled quantized values, as in TFLite): quantized/greater_equal.cc.
#include <cstdint>
#include <memory>

#include "src/kernels/cpu/internal/typed_elementwise.h"
#include "src/kernels/cpu/kernels.h"

namespace relite::cpu {
namespace {

struct GreaterEqualOp {
  template <typename T>
  uint8_t operator()(T a, T b) const {
    return static_cast<uint8_t>(a >= b);
  }
};

}  // namespace

StatusOr<std::unique_ptr<Kernel>> CreateGreaterEqual(const Node&) {
  return MakeComparisonKernel(GreaterEqualOp{}, {DataType::kFloat32, DataType::kInt32, DataType::kInt64, DataType::kInt16});
}

}  // namespace relite::cpu
