// LOGICAL_OR: bool elementwise or with broadcasting; any non-zero byte reads
// as true, the output is 0 or 1.
#include <cstdint>
#include <memory>

#include "src/kernels/cpu/internal/typed_elementwise.h"
#include "src/kernels/cpu/kernels.h"

namespace relite::cpu {
namespace {

struct LogicalOrOp {
  uint8_t operator()(uint8_t a, uint8_t b) const { return static_cast<uint8_t>((a | b) != 0); }
};

}  // namespace

StatusOr<std::unique_ptr<Kernel>> CreateLogicalOr(const Node&) {
  return MakeTypedBinaryKernel(LogicalOrOp{}, {DataType::kBool});
}

}  // namespace relite::cpu
