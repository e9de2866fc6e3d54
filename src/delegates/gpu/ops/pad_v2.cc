// PADV2: PAD with a fill value that must be a constant of the model.
#include "src/delegates/gpu/ops/emitters.h"
#include "src/delegates/gpu/ops/internal/pad.h"

namespace relite::gpu {

Status EmitPadV2(OpBuilder& b) { return EmitPadCommon(b, true); }

}  // namespace relite::gpu
