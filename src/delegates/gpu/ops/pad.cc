// PAD: constant [before, after] paddings on B/H/W/C, filled with zeros.
#include "src/delegates/gpu/ops/emitters.h"
#include "src/delegates/gpu/ops/internal/pad.h"

namespace relite::gpu {

Status EmitPad(OpBuilder& b) { return EmitPadCommon(b, false); }

}  // namespace relite::gpu
