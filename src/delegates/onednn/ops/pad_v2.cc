// PADV2 with a zero pad value -> PAD's frame (other values stay on the CPU).
#include <fmt/format.h>

#include "src/delegates/onednn/ops/ops.h"

namespace relite::onednn {

Status BuildPadV2(OpContext& ctx) {
  if (ctx.has_input(2)) {
    RELITE_RETURN_IF_ERROR(ctx.RequireFloat({2}));
    RELITE_RETURN_IF_ERROR(ctx.RequireConstant(2, "the pad value"));
    const float value = *static_cast<const float*>(ctx.input(2).data);
    if (NumElements(ctx.input(2).shape) != 1 || value != 0.0f) {
      return ctx.Refuse(fmt::format("pad value {} is not supported (zeros only)", value));
    }
  }
  return BuildPad(ctx);
}

}  // namespace relite::onednn
