// SUB: out = activation(in0 - in1) with broadcasting; int32/int64 wrap on overflow.
#include "src/kernels/cpu/internal/binary_arithmetic.h"
#include "src/kernels/cpu/kernels.h"

namespace relite::cpu {
namespace {

struct SubOp {
  template <typename T>
  T operator()(T a, T b) const {
    return WrappingSub(a, b);
  }
};

}  // namespace

StatusOr<std::unique_ptr<Kernel>> CreateSub(const Node& node) { return CreateBinaryArithmetic<SubOp>(node); }

}  // namespace relite::cpu
