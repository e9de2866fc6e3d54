// FLOOR_MOD: the remainder of a floor division, with the sign of the divisor
// (a - floor(a / b) * b), with broadcasting, for float32 and int32/int64/
// int16/int8 (plain integers, as in TFLite). An integer zero divisor fails
// Eval as in TFLite; float32 x mod 0 is NaN. INT_MIN mod -1 is 0 (TFLite
// traps there).
#include <cmath>
#include <cstdint>
#include <memory>

#include "src/kernels/cpu/internal/typed_elementwise.h"
#include "src/kernels/cpu/kernels.h"

namespace relite::cpu {
namespace {

template <typename T>
T FloorModInt(T a, T b) {
  if (b == T(-1)) return T{0};
  const T r = static_cast<T>(a % b);
  // r and b of opposite signs: r + b cannot overflow.
  return (r != 0 && ((r < 0) != (b < 0))) ? static_cast<T>(r + b) : r;
}

struct FloorModOp {
  float operator()(float a, float b) const {
    const float r = std::fmod(a, b);
    return (r != 0.0f && ((r < 0.0f) != (b < 0.0f))) ? r + b : r;
  }
  int32_t operator()(int32_t a, int32_t b) const { return FloorModInt(a, b); }
  int64_t operator()(int64_t a, int64_t b) const { return FloorModInt(a, b); }
  int16_t operator()(int16_t a, int16_t b) const { return FloorModInt(a, b); }
  int8_t operator()(int8_t a, int8_t b) const { return FloorModInt(a, b); }

  Status Validate(KernelContext& ctx, DataType type, const Tensor& divisor) const {
    switch (type) {
      case DataType::kFloat32: return Status::Ok();
      case DataType::kInt32: return CheckNoZero<int32_t>(ctx, divisor);
      case DataType::kInt64: return CheckNoZero<int64_t>(ctx, divisor);
      case DataType::kInt16: return CheckNoZero<int16_t>(ctx, divisor);
      case DataType::kInt8: return CheckNoZero<int8_t>(ctx, divisor);
      default: return ctx.Error("unexpected type " + DataTypeName(type));
    }
  }
};

}  // namespace

StatusOr<std::unique_ptr<Kernel>> CreateFloorMod(const Node&) {
  return MakeTypedBinaryKernel(
      FloorModOp{}, {DataType::kFloat32, DataType::kInt32, DataType::kInt64, DataType::kInt16, DataType::kInt8});
}

}  // namespace relite::cpu
