// SQUEEZE: the input's plain bytes under the output's shape.
#include "src/delegates/onednn/ops/ops.h"

namespace relite::onednn {

Status BuildSqueeze(OpContext& ctx) { return BuildReshapeLike(ctx); }

}  // namespace relite::onednn
