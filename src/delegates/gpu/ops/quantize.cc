// QUANTIZE: float -> 8-bit, or 8-bit -> 8-bit at another scale. The GPU holds
// real values, so this is the output's fake quant alone (folded into the
// producer when it has no other reader, see FuseClampNodes).
#include "src/delegates/gpu/ops/emitters.h"
#include "src/delegates/gpu/ops/internal/elementwise.h"

namespace relite::gpu {

Status EmitQuantize(OpBuilder& b) {
  RELITE_ASSIGN_OR_RETURN(int out, b.Output(0));
  if (!b.IsQuantized(out)) return NotOnGpu("QUANTIZE to a type other than uint8/int8 is not supported");
  return EmitUnary(b, "x");
}

}  // namespace relite::gpu
