// NOT_EQUAL: a != b elementwise with broadcasting, a bool output. Inputs
// float32, int32, int64 and bool (TFLite has no int16 NOT_EQUAL, unlike
// EQUAL); a NaN operand gives true.
// int8/uint8 (rescaled quantized values, as in TFLite): quantized/not_equal.cc.
#include <cstdint>
#include <memory>

#include "src/kernels/cpu/internal/typed_elementwise.h"
#include "src/kernels/cpu/kernels.h"

namespace relite::cpu {
namespace {

struct NotEqualOp {
  template <typename T>
  uint8_t operator()(T a, T b) const {
    return static_cast<uint8_t>(a != b);
  }
};

}  // namespace

StatusOr<std::unique_ptr<Kernel>> CreateNotEqual(const Node&) {
  return MakeComparisonKernel(NotEqualOp{}, {DataType::kFloat32, DataType::kInt32, DataType::kInt64, DataType::kBool});
}

}  // namespace relite::cpu
