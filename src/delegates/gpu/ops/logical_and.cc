// LOGICAL_AND: bool tensors live on the GPU as 0.0/1.0, so AND is a product.
#include "src/delegates/gpu/ops/emitters.h"
#include "src/delegates/gpu/ops/internal/elementwise.h"

namespace relite::gpu {

Status EmitLogicalAnd(OpBuilder& b) { return EmitBinary(b, "a * b", false, DataType::kBool); }

}  // namespace relite::gpu
