// FLOOR_DIV: a / b rounded toward -inf, with broadcasting, for float32 and
// int32/int16/int8 (TFLite takes the 8- and 16-bit types as plain integers).
// As in TFLite a zero anywhere in the divisor fails Eval, float32 included;
// float32 divides in double before the floor. The one overflowing quotient,
// MIN / -1, is what LiteRT gives on x86 instead of a trap: INT32_MIN for
// int32 (wraps), the maximum for int16 and int8 (saturates).
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>

#include "src/kernels/cpu/internal/typed_elementwise.h"
#include "src/kernels/cpu/kernels.h"

namespace relite::cpu {
namespace {

template <typename T>
T FloorDivInt(T a, T b) {
  if (b == T(-1)) {
    if constexpr (sizeof(T) < sizeof(int32_t)) {
      if (a == std::numeric_limits<T>::min()) return std::numeric_limits<T>::max();
    }
    return WrappingSub(T{0}, a);
  }
  const T q = static_cast<T>(a / b);
  // Truncation went up when the remainder is non-zero and the signs differ.
  return (a % b != 0 && ((a < 0) != (b < 0))) ? static_cast<T>(q - 1) : q;
}

struct FloorDivOp {
  float operator()(float a, float b) const {
    return static_cast<float>(std::floor(static_cast<double>(a) / static_cast<double>(b)));
  }
  int32_t operator()(int32_t a, int32_t b) const { return FloorDivInt(a, b); }
  int16_t operator()(int16_t a, int16_t b) const { return FloorDivInt(a, b); }
  int8_t operator()(int8_t a, int8_t b) const { return FloorDivInt(a, b); }

  Status Validate(KernelContext& ctx, DataType type, const Tensor& divisor) const {
    switch (type) {
      case DataType::kFloat32: return CheckNoZero<float>(ctx, divisor);
      case DataType::kInt32: return CheckNoZero<int32_t>(ctx, divisor);
      case DataType::kInt16: return CheckNoZero<int16_t>(ctx, divisor);
      case DataType::kInt8: return CheckNoZero<int8_t>(ctx, divisor);
      default: return ctx.Error("unexpected type " + DataTypeName(type));
    }
  }
};

}  // namespace

StatusOr<std::unique_ptr<Kernel>> CreateFloorDiv(const Node&) {
  return MakeTypedBinaryKernel(FloorDivOp{},
                               {DataType::kFloat32, DataType::kInt32, DataType::kInt16, DataType::kInt8});
}

}  // namespace relite::cpu
