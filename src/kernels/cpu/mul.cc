// MUL: out = activation(in0 * in1) with broadcasting; int32/int64 wrap on overflow.
#include "src/kernels/cpu/internal/binary_arithmetic.h"
#include "src/kernels/cpu/kernels.h"

namespace relite::cpu {
namespace {

struct MulOp {
  template <typename T>
  T operator()(T a, T b) const {
    return WrappingMul(a, b);
  }
};

}  // namespace

StatusOr<std::unique_ptr<Kernel>> CreateMul(const Node& node) { return CreateBinaryArithmetic<MulOp>(node); }

}  // namespace relite::cpu
