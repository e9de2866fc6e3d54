// NEG: -x. float32 flips the sign (so -0 and NaN signs flip too); the
// integer types (TFLite takes int8 and int16 as plain integers here) wrap,
// so the most negative value maps to itself.
#include <type_traits>
#include <memory>

#include "src/kernels/cpu/internal/typed_elementwise.h"
#include "src/kernels/cpu/kernels.h"

namespace relite::cpu {
namespace {

struct NegOp {
  template <typename T>
  T operator()(T x) const {
    if constexpr (std::is_floating_point_v<T>) {
      return -x;
    } else {
      return WrappingSub(T{0}, x);
    }
  }
};

}  // namespace

StatusOr<std::unique_ptr<Kernel>> CreateNeg(const Node&) {
  return MakeTypedUnaryKernel(NegOp{}, {DataType::kFloat32, DataType::kInt32, DataType::kInt64, DataType::kInt16, DataType::kInt8});
}

}  // namespace relite::cpu
