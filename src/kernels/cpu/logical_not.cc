// LOGICAL_NOT: bool negation; any non-zero input byte reads as true, the
// output is 0 or 1.
#include <cstdint>
#include <memory>

#include "src/kernels/cpu/internal/typed_elementwise.h"
#include "src/kernels/cpu/kernels.h"

namespace relite::cpu {
namespace {

struct LogicalNotOp {
  uint8_t operator()(uint8_t x) const { return static_cast<uint8_t>(x == 0); }
};

}  // namespace

StatusOr<std::unique_ptr<Kernel>> CreateLogicalNot(const Node&) {
  return MakeTypedUnaryKernel(LogicalNotOp{}, {DataType::kBool});
}

}  // namespace relite::cpu
