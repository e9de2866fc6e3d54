// EQUAL: a == b elementwise with broadcasting, a bool output. Inputs
// float32, int32, int64, int16 (plain integers, as in TFLite) and bool; a
// NaN operand gives false.
// int8/uint8 (rescaled quantized values, as in TFLite): quantized/equal.cc.
#include <cstdint>
#include <memory>

#include "src/kernels/cpu/internal/typed_elementwise.h"
#include "src/kernels/cpu/kernels.h"

namespace relite::cpu {
namespace {

struct EqualOp {
  template <typename T>
  uint8_t operator()(T a, T b) const {
    return static_cast<uint8_t>(a == b);
  }
};

}  // namespace

StatusOr<std::unique_ptr<Kernel>> CreateEqual(const Node&) {
  return MakeComparisonKernel(EqualOp{}, {DataType::kFloat32, DataType::kInt32, DataType::kInt64, DataType::kInt16, DataType::kBool});
}

}  // namespace relite::cpu
