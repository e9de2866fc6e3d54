// DEQUANTIZE of an 8-bit activation: the GPU already holds its real values,
// so this is a copy (folded into the producer when it has no other reader).
// DEQUANTIZE of a constant (float16 or 8-bit weights) is folded on the CPU
// before the delegate sees it.
#include "src/delegates/gpu/ops/emitters.h"
#include "src/delegates/gpu/ops/internal/elementwise.h"

namespace relite::gpu {

Status EmitDequantize(OpBuilder& b) {
  RELITE_ASSIGN_OR_RETURN(int in, b.Input(0));
  RELITE_ASSIGN_OR_RETURN(int out, b.Output(0));
  if (!b.IsQuantized(in)) return NotOnGpu("DEQUANTIZE of a non-constant that is not uint8/int8 is not supported");
  RELITE_RETURN_IF_ERROR(b.RequireFloat32(out, "the output"));
  return EmitUnary(b, "x");
}

}  // namespace relite::gpu
