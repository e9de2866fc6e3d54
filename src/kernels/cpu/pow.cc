// POW: a^b with broadcasting. float32 is std::pow. int32 is exact where the
// result fits; a negative exponent fails Eval and a result outside int32
// gives INT32_MIN, both as TFLite (x86) does: it computes in double and
// converts, and the conversion of an out-of-range value yields INT32_MIN.
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>

#include "src/kernels/cpu/internal/typed_elementwise.h"
#include "src/kernels/cpu/kernels.h"

namespace relite::cpu {
namespace {

int32_t IntPow(int32_t base, int32_t exponent) {
  constexpr int32_t kOutOfRange = std::numeric_limits<int32_t>::min();
  if (exponent == 0) return 1;
  if (base == 0 || base == 1) return base;
  if (base == -1) return (exponent & 1) ? -1 : 1;
  // |base| >= 2 from here: |result| >= 2^exponent.
  if (exponent >= 32) return kOutOfRange;
  int64_t result = 1;
  for (int32_t i = 0; i < exponent; ++i) {
    result *= base;
    if (result > std::numeric_limits<int32_t>::max() || result < std::numeric_limits<int32_t>::min()) {
      return kOutOfRange;
    }
  }
  return static_cast<int32_t>(result);
}

struct PowOp {
  float operator()(float a, float b) const { return std::pow(a, b); }
  int32_t operator()(int32_t a, int32_t b) const { return IntPow(a, b); }

  Status Validate(KernelContext& ctx, DataType type, const Tensor& exponent) const {
    if (type != DataType::kInt32) return Status::Ok();
    const int32_t* e = exponent.data_as<int32_t>();
    for (int64_t i = 0; i < exponent.num_elements(); ++i) {
      if (e[i] < 0) return ctx.Error("int32 POW with a negative exponent (in '" + exponent.name + "')");
    }
    return Status::Ok();
  }
};

}  // namespace

StatusOr<std::unique_ptr<Kernel>> CreatePow(const Node&) {
  return MakeTypedBinaryKernel(PowOp{}, {DataType::kFloat32, DataType::kInt32}, kTranscendentalMinChunk);
}

}  // namespace relite::cpu
